package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.store.Lease;
import dev.berth.core.store.LeaseKeeper;
import dev.berth.core.testing.SimulatedCrash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A pass keeps its session lease alive through the {@link LeaseKeeper} for exactly as long as it
 * runs: a pass may wait minutes, and a lease left to expire would let another control plane take
 * the session over mid-operation.
 */
class LeaseKeepingTest {
  private final LifecycleFixture f = new LifecycleFixture();
  private final List<String> events = new ArrayList<>();
  private final List<Lease> kept = new ArrayList<>();

  private final LeaseKeeper recording =
      (lease, ttl) -> {
        kept.add(lease);
        events.add("keep " + ttl);
        // The pass runs while the lease is kept: it is the live one of its session.
        assertThat(f.store.leases().current(lease.sessionId())).contains(lease);
        return () -> events.add("stop");
      };

  private Reconciler reconciler() {
    return new Reconciler(
        f.store,
        f.cloud,
        f.cloud,
        f.cloud,
        f.clock,
        f.settings,
        f.recoveryMode,
        name -> f.failpoints.reach(name),
        recording);
  }

  @Test
  void aPassKeepsTheLeaseItTookForItsTimeToLiveAndStopsBeforeReleasingIt() {
    Session session = f.create();

    assertThat(reconciler().reconcile(session.id())).isEqualTo(ReconcileResult.CONVERGED);

    assertThat(f.get(session.id()).phase()).isEqualTo(Phase.READY);
    assertThat(events).containsExactly("keep " + f.settings.leaseTtl(), "stop");
    assertThat(kept).singleElement().satisfies(l -> assertThat(l.holder()).isEqualTo("cp-1"));
    assertThat(f.store.leases().current(session.id())).as("released after the pass").isEmpty();
  }

  @Test
  void aPassThatCrashesStopsKeepingItsLeaseSoItExpiresAsADeadProcesssWould() {
    Session session = f.create();
    f.crashAt("start.create-runtime");

    assertThatThrownBy(() -> reconciler().reconcile(session.id()))
        .isInstanceOf(SimulatedCrash.class);

    assertThat(events).containsExactly("keep " + f.settings.leaseTtl(), "stop");
    assertThat(f.store.leases().current(session.id()))
        .as("left to expire, not released")
        .isPresent();
    f.clock.advance(f.settings.leaseTtl().plus(Duration.ofSeconds(1)));
    assertThat(f.store.leases().current(session.id())).isEmpty();
  }

  @Test
  void aBusyLeaseIsNeitherTakenNorKept() {
    Session session = f.create();
    assertThat(f.store.leases().acquire(session.id(), "cp-2", Duration.ofMinutes(1))).isPresent();

    assertThat(reconciler().reconcile(session.id())).isEqualTo(ReconcileResult.LEASE_BUSY);

    assertThat(events).isEmpty();
  }
}
