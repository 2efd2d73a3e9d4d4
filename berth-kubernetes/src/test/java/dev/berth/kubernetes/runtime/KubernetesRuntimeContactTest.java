package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import java.security.SecureRandom;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A control plane that starts while the API server is unreachable (the relay of {@link
 * SimulatedCluster} is cut before the runtime is made): its informer has never listed, so nothing
 * is Gone, and it catches up once contact returns.
 */
class KubernetesRuntimeContactTest {
  private static final String INSTALLATION = "contact-installation";
  private static final SecureRandom IDS = new SecureRandom();

  @RegisterExtension static final SimulatedCluster cluster = new SimulatedCluster();

  @AfterEach
  void restore() {
    cluster.restore();
    cluster.closeRuntimes();
  }

  @Test
  void anInformerThatNeverListedObservesUnknownNotGoneAndCatchesUpWhenContactReturns()
      throws InterruptedException {
    RuntimeRef never = RuntimeRef.planned(KubernetesRuntime.KIND, SessionId.generate(IDS), 1);
    cluster.cut();
    KubernetesRuntime runtime = cluster.unsyncedRuntime(INSTALLATION);

    assertThat(runtime.awaitSynced(Duration.ofMillis(300))).isFalse();
    assertThat(runtime.observing()).isFalse();
    assertThat(runtime.observe(never))
        .isInstanceOfSatisfying(
            RuntimeObservation.Unknown.class,
            u -> assertThat(u.detail()).contains("has not listed pods yet"));
    assertThat(runtime.remove(never)).isInstanceOf(RemovalResult.Unconfirmed.class);

    cluster.restore();

    assertThat(runtime.awaitSynced(Duration.ofSeconds(20))).isTrue();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> runtime.observe(never), o -> o instanceof RuntimeObservation.Gone);
  }

  @Test
  void aProvisionWithoutContactFailsNamingTheApiServerAndThePermissionsNeeded() {
    KubernetesRuntime runtime = cluster.unsyncedRuntime(INSTALLATION);
    cluster.cut();
    SessionId session = SessionId.generate(IDS);
    RuntimeSpec spec =
        new RuntimeSpec(
            RuntimeRef.planned(KubernetesRuntime.KIND, session, 1),
            WorkloadType.SHELL,
            new OwnershipLabels(INSTALLATION, session, 1));

    assertThatThrownBy(() -> runtime.provision(spec))
        .isInstanceOf(KubernetesRuntimeException.class)
        .hasMessageContaining("could not create berth/" + spec.runtime().name() + "-token")
        .hasMessageContaining("check that the API server is reachable");
  }
}
