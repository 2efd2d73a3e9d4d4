package dev.berth.server.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.core.session.SessionId;
import dev.berth.core.store.Lease;
import dev.berth.core.store.LeaseKeeper;
import dev.berth.core.testing.TestSessions;
import dev.berth.server.store.sql.SqlSessionStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The renewer against a real SQLite store on the real clock: a kept lease outlives its time to live
 * many times over with its fencing token unchanged, and once no longer kept it expires and another
 * holder takes over.
 */
class LeaseRenewerTest {
  private static final Duration TTL = Duration.ofMillis(1500);

  @TempDir Path dir;
  private SqlSessionStore store;
  private LeaseRenewer renewer;

  @BeforeEach
  void open() {
    store = SqlSessionStore.openSqlite(dir.resolve("berth.db"), Clock.systemUTC());
    renewer = new LeaseRenewer(store.leases());
  }

  @AfterEach
  void close() {
    renewer.close();
    store.close();
  }

  @Test
  void aKeptLeaseOutlivesItsTimeToLiveWithItsTokenAndNoOtherHolderGetsIt() throws Exception {
    SessionId session = TestSessions.newId();
    Lease lease = store.leases().acquire(session, "replica-a", TTL).orElseThrow();

    LeaseKeeper.Kept kept = renewer.keep(lease, TTL);
    try {
      Thread.sleep(TTL.multipliedBy(3).toMillis());

      assertThat(store.leases().acquire(session, "replica-b", TTL)).isEmpty();
      assertThat(store.leases().current(session))
          .hasValueSatisfying(
              live -> {
                assertThat(live.holder()).isEqualTo("replica-a");
                assertThat(live.token()).isEqualTo(lease.token());
                assertThat(live.expiresAt()).isAfter(lease.expiresAt());
              });
    } finally {
      kept.close();
    }

    await()
        .atMost(TTL.multipliedBy(4))
        .until(() -> store.leases().acquire(session, "replica-b", TTL).isPresent());
    assertThat(store.leases().current(session).orElseThrow().token().value())
        .isGreaterThan(lease.token().value());
  }

  @Test
  void aLeaseTakenOverIsNotRenewedAgainstItsNewHolder() throws Exception {
    SessionId session = TestSessions.newId();
    Lease lease = store.leases().acquire(session, "replica-a", Duration.ofMillis(1)).orElseThrow();
    Thread.sleep(5);
    Lease taken = store.leases().acquire(session, "replica-b", TTL).orElseThrow();

    LeaseKeeper.Kept kept = renewer.keep(lease, Duration.ofMillis(300));
    Thread.sleep(600);
    kept.close();

    assertThat(store.leases().current(session)).contains(taken);
  }
}
