package dev.berth.kubernetes.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.Session;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import dev.berth.store.CorruptRecordException;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Duration;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the store leaves in the namespace, which the contract cannot see: object names, labels and
 * annotations, the Lease's spec, and what a stranger's or a damaged object does. The API server is
 * simulated (fabric8's mock server in CRUD mode).
 */
class ConfigMapStoreLayoutTest {
  private static final Duration TTL = Duration.ofSeconds(60);

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
  private final MockApiServer server = MockApiServer.start();
  private final ConfigMapSessionStore store = store("test");

  @AfterEach
  void stop() {
    server.close();
  }

  private ConfigMapSessionStore store(String installation) {
    return new ConfigMapSessionStore(server.client(), MockApiServer.NAMESPACE, installation, clock);
  }

  private ConfigMap configMap(String name) {
    return server.client().configMaps().inNamespace(MockApiServer.NAMESPACE).withName(name).get();
  }

  private Lease lease(String name) {
    return server.client().leases().inNamespace(MockApiServer.NAMESPACE).withName(name).get();
  }

  @Test
  void keepsASessionInItsNamedConfigMapWithSelectionLabels() {
    Session s = store.create(TestSessions.requested(clock.instant()));

    ConfigMap cm = configMap("session-" + s.id().value());

    assertThat(cm.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "berth")
        .containsEntry("berth.dev/installation", "test")
        .containsEntry("berth.dev/session", s.id().value())
        .containsEntry("berth.dev/kind", "session")
        .containsEntry("berth.dev/tenant", s.tenant().value())
        .containsEntry("berth.dev/phase", s.phase().name())
        .containsEntry("berth.dev/deleted", "false")
        .containsEntry("berth.dev/unfinished-operations", "false");
    assertThat(cm.getData()).containsOnlyKeys("session");
    assertThat(cm.getData().get("session")).contains("\"format\":3").contains("\"version\":1");
  }

  @Test
  void keepsOperationsInTheirSessionConfigMapAndLabelsItWhileOneIsUnfinished() {
    Session s = store.create(TestSessions.requested(clock.instant()));
    OperationId id = OperationId.of(s.id(), OperationType.PROVISION, 1);
    store.createOperation(
        Operation.pending(
            id,
            s.id(),
            OperationType.PROVISION,
            1,
            clock.instant(),
            clock.instant().plusSeconds(600)));

    ConfigMap cm = configMap("session-" + s.id().value());

    assertThat(cm.getData()).containsKeys("session", "operation." + id.value());
    assertThat(cm.getMetadata().getLabels())
        .containsEntry("berth.dev/unfinished-operations", "true");
  }

  @Test
  void keepsTheLeaseInACoordinationLeaseWithHolderDurationRenewTimeAndToken() {
    Session s = store.create(TestSessions.requested(clock.instant()));
    assertThat(store.leases().acquire(s.id(), "node-a", TTL)).isPresent();

    Lease lease = lease("berth-lease-" + s.id().value());

    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("node-a");
    assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(60);
    assertThat(lease.getSpec().getRenewTime().toInstant()).isEqualTo(clock.instant());
    assertThat(lease.getSpec().getLeaseTransitions()).isZero();
    assertThat(lease.getMetadata().getAnnotations())
        .containsEntry("berth.dev/fencing-token", "1")
        .containsEntry("berth.dev/expires-at", clock.instant().plus(TTL).toString());
    assertThat(lease.getMetadata().getLabels()).containsEntry("berth.dev/session", s.id().value());
    assertThat(configMap("session-" + s.id().value()).getMetadata().getAnnotations())
        .containsEntry("berth.dev/fence", "1");
  }

  @Test
  void takesAnExpiredLeaseOverByTheInjectedClockAndRaisesTheSessionFence() {
    Session s = store.create(TestSessions.requested(clock.instant()));
    assertThat(store.leases().acquire(s.id(), "node-a", TTL)).isPresent();
    clock.advance(TTL);

    assertThat(store.leases().acquire(s.id(), "node-b", TTL)).isPresent();

    Lease lease = lease("berth-lease-" + s.id().value());
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("node-b");
    assertThat(lease.getSpec().getLeaseTransitions()).isEqualTo(1);
    assertThat(lease.getSpec().getAcquireTime().withZoneSameInstant(ZoneOffset.UTC).toInstant())
        .isEqualTo(clock.instant());
    assertThat(lease.getMetadata().getAnnotations()).containsEntry("berth.dev/fencing-token", "2");
    assertThat(configMap("session-" + s.id().value()).getMetadata().getAnnotations())
        .containsEntry("berth.dev/fence", "2");
  }

  @Test
  void roundsASubSecondTtlUpToWholeSecondsInTheSpecButExpiresExactly() {
    Session s = store.create(TestSessions.requested(clock.instant()));
    Duration ttl = Duration.ofMillis(1500);
    assertThat(store.leases().acquire(s.id(), "node-a", ttl)).isPresent();

    Lease lease = lease("berth-lease-" + s.id().value());
    assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(2);
    clock.advance(ttl);
    assertThat(store.leases().current(s.id())).isEmpty();
  }

  @Test
  void readsALeaseWithoutAFencingTokenAsCorruptNeverAsFree() {
    Session s = store.create(TestSessions.requested(clock.instant()));
    server
        .client()
        .leases()
        .inNamespace(MockApiServer.NAMESPACE)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("berth-lease-" + s.id().value())
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("someone-else")
                .endSpec()
                .build())
        .create();

    assertThatThrownBy(() -> store.leases().acquire(s.id(), "node-a", TTL))
        .isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("berth-lease-" + s.id().value())
        .hasMessageContaining("berth.dev/fencing-token");
  }

  @Test
  void readsASessionConfigMapWithUnreadableJsonAsCorruptNeverAsAbsent() {
    Session s = store.create(TestSessions.requested(clock.instant()));
    ConfigMap cm = configMap("session-" + s.id().value());
    cm.getData().put("session", "{\"format\":3,\"id\":");
    server.client().configMaps().inNamespace(MockApiServer.NAMESPACE).resource(cm).update();

    assertThatThrownBy(() -> store.get(s.id()))
        .isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("session-" + s.id().value());
  }

  @Test
  void installationsSharingANamespaceListOnlyTheirOwnSessions() {
    ConfigMapSessionStore other = store("other");
    Session mine = store.create(TestSessions.requested(clock.instant()));
    Session theirs = other.create(TestSessions.requested(clock.instant()));

    assertThat(store.list(SessionQuery.all(10)).items()).containsExactly(mine);
    assertThat(other.list(SessionQuery.all(10)).items()).containsExactly(theirs);
  }
}
