package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.session.ConditionStatus;
import dev.berth.core.session.ConditionType;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import org.junit.jupiter.api.Test;

/**
 * A runtime that stopped its workload (its host stopped it) is reported, never restarted. A shell
 * that exits is not such an end: the agent keeps the runtime running and starts a new shell.
 */
class WorkloadExitTest {

  private final LifecycleFixture f = new LifecycleFixture();

  @Test
  void aSessionWhoseRuntimeStoppedItsWorkloadFailsWithTheRuntimeHealthReasonAndKeepsItsRuntime() {
    Session s = f.ready();
    RuntimeRef runtime = s.runtime().orElseThrow();

    f.cloud.workloadExits(runtime.name());
    f.reconcile(s.id());

    Session failed = f.get(s.id());
    assertThat(failed.phase()).isEqualTo(Phase.FAILED);
    assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.RUNTIME_HEALTH);
    assertThat(failed.conditions().status(ConditionType.RUNTIME_READY))
        .isEqualTo(ConditionStatus.FALSE);
    assertThat(failed.reservation()).isEqualTo(Reservation.HELD);
    assertThat(f.cloud.live(s.id())).extracting(RuntimeRef::name).containsExactly(runtime.name());
    assertThat(f.cloud.created(s.id())).isEqualTo(1);
  }

  @Test
  void aRuntimeStoppedForAnExpiredControlLeaseFailsTheSessionWithThatReasonAndStartsNoOther() {
    Session s = f.ready();
    RuntimeRef runtime = s.runtime().orElseThrow();

    f.cloud.workloadStopped(runtime.name(), "LEASE_EXPIRED");
    f.reconcile(s.id());
    f.reconcile(s.id());

    Session failed = f.get(s.id());
    assertThat(failed.phase()).isEqualTo(Phase.FAILED);
    assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.LEASE_EXPIRED);
    assertThat(failed.failure().orElseThrow().message()).contains("disconnect policy");
    assertThat(failed.conditions().get(ConditionType.RUNTIME_READY).orElseThrow().reason())
        .isEqualTo("LEASE_EXPIRED");
    assertThat(failed.reservation()).isEqualTo(Reservation.HELD);
    assertThat(f.cloud.created(s.id())).isEqualTo(1);
  }

  @Test
  void aRuntimeStoppedForAnotherReasonNamesItInItsCondition() {
    Session s = f.ready();

    f.cloud.workloadStopped(s.runtime().orElseThrow().name(), "MAX_LIFETIME_EXCEEDED");
    f.reconcile(s.id());

    Session failed = f.get(s.id());
    assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.RUNTIME_HEALTH);
    assertThat(failed.failure().orElseThrow().message()).contains("MAX_LIFETIME_EXCEEDED");
    assertThat(failed.conditions().get(ConditionType.RUNTIME_READY).orElseThrow().reason())
        .isEqualTo("MAX_LIFETIME_EXCEEDED");
  }

  @Test
  void deletingAFailedSessionRemovesItsRuntimeAndReleasesTheReservation() {
    Session s = f.ready();
    f.cloud.workloadExits(s.runtime().orElseThrow().name());
    f.reconcile(s.id());

    Session terminated =
        f.requestAndReconcile(s.id(), DesiredState.TERMINATED, p -> p == Phase.TERMINATED);

    assertThat(terminated.reservation()).isEqualTo(Reservation.RELEASED);
    assertThat(f.cloud.live(s.id())).isEmpty();
  }
}
