package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import dev.berth.kubernetes.runtime.KubeletSimulator.Fault;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How the runtime reports a pod that will not run, one failure each, on the simulated cluster of
 * {@link KubeletSimulator}: the simulator writes the status a scheduler, kubelet or node controller
 * reports in that case (and kills the agent's process where the agent dies), and the runtime's
 * informer must turn it into the observation the reconciler acts on.
 */
class KubernetesRuntimeFailureTest {
  private static final String INSTALLATION = "failure-installation";
  private static final SecureRandom IDS = new SecureRandom();

  @RegisterExtension static final SimulatedCluster cluster = new SimulatedCluster();
  private KubernetesRuntime runtime;
  private final List<RuntimeRef> provisioned = new ArrayList<>();

  @BeforeEach
  void startRuntime() throws InterruptedException {
    runtime = cluster.directRuntime(INSTALLATION);
  }

  @AfterEach
  void removeWhatWasProvisioned() {
    try {
      for (RuntimeRef ref : provisioned) {
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> runtime.remove(ref), r -> r instanceof RemovalResult.Confirmed);
      }
    } finally {
      cluster.closeRuntimes();
    }
  }

  @Test
  void aPodNoNodeCanTakeIsStartingStalledBySchedulingSoTheDeadlineDecides() {
    RuntimeRef ref = provision(Optional.of(Fault.NEVER_SCHEDULED));

    assertThat(awaitSettled(ref))
        .isInstanceOfSatisfying(
            RuntimeObservation.Starting.class,
            s -> {
              assertThat(s.stalledBy()).contains(FailureReason.SCHEDULING);
              assertThat(s.detail()).contains("Insufficient memory");
            });
  }

  @Test
  void aPodWhoseImagePullBacksOffIsStartingStalledByImagePull() {
    RuntimeRef ref = provision(Optional.of(Fault.IMAGE_PULL_BACKOFF));

    assertThat(awaitSettled(ref))
        .isInstanceOfSatisfying(
            RuntimeObservation.Starting.class,
            s -> assertThat(s.stalledBy()).contains(FailureReason.IMAGE_PULL));
  }

  @Test
  void aPodWithAnInvalidImageNameFailsWithImageInvalid() {
    RuntimeRef ref = provision(Optional.of(Fault.INVALID_IMAGE));

    assertFailed(awaitSettled(ref), FailureReason.IMAGE_INVALID, "InvalidImageName");
  }

  @Test
  void aPodWhoseConfigurationRefersToSomethingMissingFailsWithRuntimeConfigInvalid() {
    RuntimeRef ref = provision(Optional.of(Fault.CONFIG_ERROR));

    assertFailed(
        awaitSettled(ref), FailureReason.RUNTIME_CONFIG_INVALID, "CreateContainerConfigError");
  }

  @Test
  void anAgentKilledForItsMemoryFailsWithOutOfMemory() {
    RuntimeRef ref = runningPod();

    cluster.kubelet().inject(ref.name(), Fault.OOM_KILLED);

    assertFailed(awaitNoLongerRunning(ref), FailureReason.OUT_OF_MEMORY, "memory limit");
  }

  @Test
  void anAgentThatKeepsCrashingFailsWithAgentCrashloop() {
    RuntimeRef ref = runningPod();

    cluster.kubelet().inject(ref.name(), Fault.CRASH_LOOP);

    assertFailed(awaitNoLongerRunning(ref), FailureReason.AGENT_CRASHLOOP, "CrashLoopBackOff");
  }

  @Test
  void anEvictedPodFailsWithEvicted() {
    RuntimeRef ref = runningPod();

    cluster.kubelet().inject(ref.name(), Fault.EVICTED);

    assertFailed(awaitNoLongerRunning(ref), FailureReason.EVICTED, "low on resource");
  }

  @Test
  void aPodWhoseNodeIsLostIsUnknownNeverGoneSinceItMayRunOn() {
    RuntimeRef ref = runningPod();

    cluster.kubelet().inject(ref.name(), Fault.NODE_LOST);

    assertThat(awaitNoLongerRunning(ref))
        .isInstanceOfSatisfying(
            RuntimeObservation.Unknown.class, u -> assertThat(u.detail()).contains("NodeLost"));
  }

  /** Provisions a pod the simulator starts (or fails as {@code fault} says). */
  private RuntimeRef provision(Optional<Fault> fault) {
    SessionId session = SessionId.generate(IDS);
    RuntimeSpec spec =
        new RuntimeSpec(
            RuntimeRef.planned(runtime.kind(), session, 1),
            WorkloadType.SHELL,
            new OwnershipLabels(INSTALLATION, session, 1));
    fault.ifPresent(f -> cluster.kubelet().plan(spec.runtime().name(), f));
    provisioned.add(spec.runtime());
    runtime.provision(spec);
    return spec.runtime();
  }

  private RuntimeRef runningPod() {
    RuntimeRef ref = provision(Optional.empty());
    assertThat(awaitSettled(ref)).isInstanceOf(RuntimeObservation.Running.class);
    return ref;
  }

  /** Observes until the pod is past its plain start: anything but Starting with nothing stalled. */
  private RuntimeObservation awaitSettled(RuntimeRef ref) {
    return await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> runtime.observe(ref),
            o -> !(o instanceof RuntimeObservation.Starting s && s.stalledBy().isEmpty()));
  }

  private RuntimeObservation awaitNoLongerRunning(RuntimeRef ref) {
    return await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> runtime.observe(ref), o -> !(o instanceof RuntimeObservation.Running));
  }

  private static void assertFailed(
      RuntimeObservation observed, FailureReason reason, String detail) {
    assertThat(observed)
        .isInstanceOfSatisfying(
            RuntimeObservation.Failed.class,
            f -> {
              assertThat(f.reason()).isEqualTo(reason);
              assertThat(f.detail()).contains(detail);
            });
  }
}
