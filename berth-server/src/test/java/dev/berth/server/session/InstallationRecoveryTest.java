package dev.berth.server.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.lifecycle.RecoveryMode;
import dev.berth.core.lifecycle.RecoveryReport;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.Duties;
import dev.berth.core.testing.InMemoryArchiveStore;
import dev.berth.core.testing.InMemorySessionStore;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.SimulatedCloud;
import dev.berth.core.testing.TestSessions;
import dev.berth.server.runtime.StoreEpochStamp;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * When a control plane finds its store older than what the runtimes and archives saw, and what it
 * does about it: recovery mode on (and kept across a restart) until a person approves.
 */
class InstallationRecoveryTest {

  private final MutableClock clock = MutableClock.at("2026-12-05T10:00:00Z");
  private final InMemorySessionStore store = new InMemorySessionStore(clock);
  private final InMemoryArchiveStore archives = new InMemoryArchiveStore(clock);
  private final SimulatedCloud cloud = new SimulatedCloud(clock);
  private final AtomicLong nodeMark = new AtomicLong();
  private final AtomicInteger recoveries = new AtomicInteger();
  private RecoveryMode mode = new RecoveryMode();
  private StoreEpochStamp stamp = new StoreEpochStamp();

  private InstallationRecovery controlPlane() {
    mode = new RecoveryMode();
    stamp = new StoreEpochStamp();
    return new InstallationRecovery(
        new InstallationRecovery.Ports(
            store,
            store,
            cloud,
            archives,
            stamp::advanceTo,
            mode,
            () -> {
              recoveries.incrementAndGet();
              return new RecoveryReport(List.of("adopted-1"), List.of("runtime-x"), List.of());
            },
            List.of(
                new HighWaterMark.Source("node", nodeMark::get),
                new HighWaterMark.Source("archives", archives::storeEpochSeen)),
            "test-installation",
            "cp-1",
            clock));
  }

  private ReplicaDuty duty() {
    Duties always =
        new Duties() {
          @Override
          public boolean hold(String duty, String holder, Duration ttl) {
            return true;
          }

          @Override
          public void release(String duty, String holder) {}
        };
    return new ReplicaDuty(always, InstallationRecovery.DUTY, "cp-1", Duration.ofMinutes(1));
  }

  @Test
  void aStartWithNoMarkAboveTheStoreAdvancesTheEpochStampsItAndStaysOut() {
    store.raise(3);
    nodeMark.set(3);
    InstallationRecovery recovery = controlPlane();

    recovery.start();

    assertThat(recovery.active()).isFalse();
    assertThat(store.current()).isEqualTo(4);
    assertThat(stamp.current()).isEqualTo(4);
    assertThat(recoveries).hasValue(0);
    assertThat(recovery.findings().marks())
        .containsExactly(new HighWaterMark("node", 3), new HighWaterMark("archives", 0));
  }

  @Test
  void aNodeMarkAboveTheStoreEpochEntersRecoveryModeAndRaisesTheEpochPastIt() {
    store.raise(5);
    nodeMark.set(8);
    InstallationRecovery recovery = controlPlane();

    recovery.start();

    assertThat(recovery.active()).isTrue();
    assertThat(mode.held()).isTrue();
    assertThat(store.current()).isEqualTo(9);
    assertThat(stamp.current()).isEqualTo(9);
    assertThat(store.recoverySince()).contains(clock.instant());
    RecoveryFindings found = recovery.findings();
    assertThat(found.storeEpoch()).isEqualTo(5);
    assertThat(found.reason()).contains("node saw 8").contains("older backup");
    assertThat(found.adopted()).containsExactly("adopted-1");
    assertThat(found.quarantinedRuntimes()).containsExactly("runtime-x");
    assertThat(recoveries).hasValue(1);
  }

  @Test
  void anArchiveMarkAboveTheStoreEpochEntersRecoveryModeToo() {
    store.raise(2);
    archives.recordStoreEpoch(6);
    InstallationRecovery recovery = controlPlane();

    recovery.start();

    assertThat(recovery.active()).isTrue();
    assertThat(recovery.findings().reason()).contains("archives saw 6");
  }

  @Test
  void aRestartDuringRecoveryModeStaysInItThoughTheEpochWasRaised() {
    store.raise(5);
    nodeMark.set(8);
    controlPlane().start();

    InstallationRecovery restarted = controlPlane();
    restarted.start();

    assertThat(restarted.active()).isTrue();
    assertThat(restarted.findings().reason()).contains("no one ended it");
  }

  @Test
  void approvalEndsRecoveryModeRecordsItInTheStoreAndTheAuditLog() {
    store.raise(5);
    nodeMark.set(8);
    InstallationRecovery recovery = controlPlane();
    recovery.start();

    RecoveryFindings approved = recovery.approve("admin");

    assertThat(approved.active()).isFalse();
    assertThat(approved.approvedBy()).contains("admin");
    assertThat(recovery.active()).isFalse();
    assertThat(store.recoverySince()).isEmpty();
    assertThat(store.allEvents(0, 100))
        .anySatisfy(
            e -> {
              assertThat(e.type()).isEqualTo("recovery.approved");
              assertThat(e.actor()).isEqualTo("admin");
              assertThat(e.detail()).contains("runtime-x");
            });
    assertThatThrownBy(() -> recovery.approve("admin"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not on");

    InstallationRecovery restarted = controlPlane();
    restarted.start();
    assertThat(restarted.active()).isFalse();
  }

  @Test
  void aRuntimeAheadOfItsSessionsIntentEntersRecoveryModeOnce() {
    InstallationRecovery recovery = controlPlane();
    recovery.start();
    SessionId session = TestSessions.newId();

    recovery.runtimeAhead(session);
    recovery.runtimeAhead(session);

    assertThat(recovery.active()).isTrue();
    assertThat(recovery.findings().reason()).contains(session.value());
    assertThat(recoveries).hasValue(1);
  }

  @Test
  void eachTickAdvancesTheEpochAndAStoreSwappedUnderARunningServerIsFound() {
    InstallationRecovery recovery = controlPlane();
    recovery.start();
    long started = store.current();

    recovery.tick(duty());
    assertThat(store.current()).isEqualTo(started + 1);
    assertThat(stamp.current()).isEqualTo(started + 1);
    assertThat(recovery.active()).isFalse();

    nodeMark.set(started + 10);
    recovery.tick(duty());
    assertThat(recovery.active()).isTrue();
    assertThat(store.current()).isEqualTo(started + 11);
  }

  @Test
  void anApprovalByAnotherReplicaEndsRecoveryModeHereAtTheNextTick() {
    store.raise(5);
    nodeMark.set(8);
    InstallationRecovery recovery = controlPlane();
    recovery.start();

    store.endRecovery();
    recovery.tick(duty());

    assertThat(recovery.active()).isFalse();
    assertThat(recovery.findings().approvedBy()).contains("another replica");
  }
}
