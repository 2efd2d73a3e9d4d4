package dev.berth.kubernetes.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.StaleFenceException;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Session;
import dev.berth.core.store.Lease;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import dev.berth.store.StoreJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The two gaps of a fenced write across two objects (see package-info), each forced by building the
 * store's parts with one step held back. The API server is simulated (fabric8's mock server in CRUD
 * mode).
 */
class ConfigMapStoreFencingTest {
  private static final Duration TTL = Duration.ofSeconds(60);

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
  private final MockApiServer server = MockApiServer.start();
  private final ConfigMapSessionStore store =
      new ConfigMapSessionStore(server.client(), MockApiServer.NAMESPACE, "test", clock);
  private final Layout layout = new Layout("test");
  private final KubeObjects<ConfigMap> configMaps =
      new KubeObjects<>(server.client(), ConfigMap.class, "configmaps", MockApiServer.NAMESPACE);

  @AfterEach
  void stop() {
    server.close();
  }

  /** Session writes whose every Lease read answers {@code token}, as if read long ago. */
  private SessionRecords sessionsReadingTheLeaseAs(long token) {
    return new SessionRecords(
        new SessionObjects(
            configMaps,
            new SessionConfigMaps(layout, new StoreJson(Layout.REPAIR)),
            layout,
            s -> token));
  }

  @Test
  void aWriteThatReadTheLeaseBeforeATakeoverFailsOnTheFenceTheTakeoverRaised() {
    Session s = store.create(TestSessions.requested(clock.instant()));
    Lease old = store.leases().acquire(s.id(), "node-a", TTL).orElseThrow();
    SessionRecords late = sessionsReadingTheLeaseAs(old.token().value());
    clock.advance(TTL);
    assertThat(store.leases().acquire(s.id(), "node-b", TTL)).isPresent();

    assertThatThrownBy(
            () ->
                late.compareAndSet(
                    s.withIntent(DesiredState.SUSPENDED, clock.instant(), "node-a", "late"),
                    1,
                    Optional.of(old.token())))
        .isInstanceOf(StaleFenceException.class)
        .hasMessageContaining("token 1")
        .hasMessageContaining("now at token 2");
    assertThat(store.get(s.id()).orElseThrow().version()).isEqualTo(1);
  }

  @Test
  void anAcquireThatStoppedBeforeRaisingTheFenceIsCompletedByTheHoldersNextAcquire() {
    Session s = store.create(TestSessions.requested(clock.instant()));
    Lease old = store.leases().acquire(s.id(), "node-a", TTL).orElseThrow();
    clock.advance(TTL);
    LeaseRecords stopping =
        new LeaseRecords(
            new KubeObjects<>(
                server.client(),
                io.fabric8.kubernetes.api.model.coordination.v1.Lease.class,
                "leases",
                MockApiServer.NAMESPACE),
            layout,
            clock,
            (session, token) -> {});
    Lease taken = stopping.acquire(s.id(), "node-b", TTL).orElseThrow();
    assertThat(configMaps.get("session-" + s.id().value()).orElseThrow().getMetadata())
        .satisfies(m -> assertThat(m.getAnnotations()).containsEntry("berth.dev/fence", "1"));

    assertThatThrownBy(
            () ->
                store.compareAndSet(
                    s.withIntent(DesiredState.SUSPENDED, clock.instant(), "node-a", "late"),
                    1,
                    old.token()))
        .isInstanceOf(StaleFenceException.class);
    assertThat(store.leases().acquire(s.id(), "node-b", TTL))
        .map(Lease::token)
        .contains(taken.token());
    assertThat(configMaps.get("session-" + s.id().value()).orElseThrow().getMetadata())
        .satisfies(m -> assertThat(m.getAnnotations()).containsEntry("berth.dev/fence", "2"));
  }
}
