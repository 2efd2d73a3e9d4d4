package dev.berth.kubernetes.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Claims on the ConfigMap store: who may hold one beside whom, and when a holder lapses. */
class ConfigMapClaimsTest {
  private static final String KEY = "berth-local-runtime";
  private final MutableClock clock = MutableClock.at("2026-12-05T10:00:00Z");
  private final MockApiServer server = MockApiServer.start();
  private final ConfigMapClaims claims =
      new ConfigMapClaims(server.client(), MockApiServer.NAMESPACE, "test", clock);

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void anExclusiveClaimRefusesEveryOtherHolderUntilItIsClosed() throws Exception {
    AutoCloseable first = claims.claim(KEY, "replica-a", false, "replica-a holds it");

    assertThatThrownBy(() -> claims.claim(KEY, "replica-b", false, "replica-a holds it"))
        .isInstanceOf(ClaimRefusedException.class)
        .hasMessage("replica-a holds it");
    assertThatThrownBy(() -> claims.claim(KEY, "replica-b", true, "a local server holds it"))
        .isInstanceOf(ClaimRefusedException.class);

    first.close();
    claims.claim(KEY, "replica-b", false, "replica-b holds it").close();
  }

  @Test
  void sharedClaimsHoldTogetherAndRefuseAnExclusiveOne() throws Exception {
    AutoCloseable a = claims.claim(KEY, "replica-a", true, "refused");
    AutoCloseable b = claims.claim(KEY, "replica-b", true, "refused");
    assertThatThrownBy(() -> claims.claim(KEY, "local", false, "kubernetes replicas hold it"))
        .isInstanceOf(ClaimRefusedException.class)
        .hasMessage("kubernetes replicas hold it");

    a.close();
    assertThatThrownBy(() -> claims.claim(KEY, "local", false, "replica-b holds it"))
        .isInstanceOf(ClaimRefusedException.class);
    b.close();
    claims.claim(KEY, "local", false, "refused").close();
  }

  @Test
  void aHolderThatStoppedRenewingLapsesAfterItsTimeToLive() throws Exception {
    var unused = claims.claim(KEY, "killed", false, "refused");
    clock.advance(ConfigMapClaims.TTL.minusSeconds(1));
    assertThatThrownBy(() -> claims.claim(KEY, "next", false, "killed holds it"))
        .isInstanceOf(ClaimRefusedException.class);

    // Renewal runs on real time, a third of the TTL apart: the moved clock outruns it.
    clock.advance(ConfigMapClaims.TTL);
    claims.claim(KEY, "next", false, "refused").close();
  }

  @Test
  void aRestartedHolderTakesItsOwnClaimBackAtOnce() throws Exception {
    var crashed = claims.claim(KEY, "replica-a", false, "refused");

    AutoCloseable again = claims.claim(KEY, "replica-a", false, "refused");

    assertThat(
            server
                .client()
                .configMaps()
                .inNamespace(MockApiServer.NAMESPACE)
                .withName("berth-claim-test-" + KEY)
                .get()
                .getData())
        .hasSize(1);
    again.close();
    crashed.close();
  }
}
