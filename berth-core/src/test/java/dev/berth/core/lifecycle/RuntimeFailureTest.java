package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationState;
import dev.berth.core.session.ConditionStatus;
import dev.berth.core.session.ConditionType;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A runtime that exists but will not run (a pod that cannot pull its image, one killed for memory)
 * fails its session with the runtime's own reason; one that is merely stalled (no node has room)
 * fails with that reason only at the operation's deadline. Either way the runtime is kept, and its
 * reservation with it, until its removal is confirmed.
 */
class RuntimeFailureTest {

  private final LifecycleFixture f = new LifecycleFixture();

  @Test
  void aRuntimeThatCannotStartFailsTheSessionWithItsReasonAndKeepsRuntimeAndReservation() {
    f.cloud.startInstantly(false);
    Session s = f.create();
    f.reconcile(s.id());
    RuntimeRef runtime = f.get(s.id()).runtime().orElseThrow();

    f.cloud.fail(runtime.name(), FailureReason.IMAGE_INVALID, "InvalidImageName: berth/agent::x");
    f.reconcile(s.id());

    Session failed = f.get(s.id());
    assertThat(failed.phase()).isEqualTo(Phase.FAILED);
    assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.IMAGE_INVALID);
    assertThat(failed.failure().orElseThrow().message()).contains("InvalidImageName");
    assertThat(failed.conditions().status(ConditionType.RUNTIME_READY))
        .isEqualTo(ConditionStatus.FALSE);
    assertThat(failed.reservation()).isEqualTo(Reservation.HELD);
    assertThat(f.cloud.live(s.id())).extracting(RuntimeRef::name).containsExactly(runtime.name());
    assertThat(f.store.listOperations(s.id()))
        .extracting(Operation::state)
        .containsExactly(OperationState.FAILED);
  }

  @Test
  void aStalledStartWaitsUntilTheDeadlineAndThenFailsWithTheStallsReason() {
    f.cloud.startInstantly(false);
    f.cloud.startsStalledBy(FailureReason.SCHEDULING);
    Session s = f.create();
    f.reconcile(s.id());

    f.clock.advance(f.settings.operationTimeout().minus(Duration.ofSeconds(1)));
    f.reconcile(s.id());
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.PROVISIONING);

    f.clock.advance(Duration.ofSeconds(2));
    f.reconcile(s.id());

    Session failed = f.get(s.id());
    assertThat(failed.phase()).isEqualTo(Phase.FAILED);
    assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.SCHEDULING);
    assertThat(failed.reservation()).isEqualTo(Reservation.HELD);
  }

  @Test
  void aStartThatIsSimplySlowFailsWithDeadlineExceededOnceTheDeadlinePassed() {
    f.cloud.startInstantly(false);
    Session s = f.create();
    f.reconcile(s.id());

    f.clock.advance(f.settings.operationTimeout().plus(Duration.ofSeconds(1)));
    f.reconcile(s.id());

    assertThat(f.get(s.id()).failure().orElseThrow().reason())
        .isEqualTo(FailureReason.DEADLINE_EXCEEDED);
  }

  @Test
  void aReadySessionWhoseRuntimeWasKilledForMemoryFailsWithOutOfMemoryAndIsNotReplaced() {
    Session s = f.ready();
    RuntimeRef runtime = s.runtime().orElseThrow();

    f.cloud.fail(runtime.name(), FailureReason.OUT_OF_MEMORY, "OOMKilled (exit 137)");
    f.reconcile(s.id());

    Session failed = f.get(s.id());
    assertThat(failed.phase()).isEqualTo(Phase.FAILED);
    assertThat(failed.failure().orElseThrow().reason()).isEqualTo(FailureReason.OUT_OF_MEMORY);
    assertThat(failed.reservation()).isEqualTo(Reservation.HELD);
    assertThat(f.cloud.created(s.id())).isEqualTo(1);
  }

  @Test
  void deletingASessionWhoseRuntimeFailedRemovesTheRuntimeAndOnlyThenReleasesTheReservation() {
    Session s = f.ready();
    f.cloud.fail(s.runtime().orElseThrow().name(), FailureReason.EVICTED, "Evicted");
    f.reconcile(s.id());

    Session terminated =
        f.requestAndReconcile(s.id(), DesiredState.TERMINATED, p -> p == Phase.TERMINATED);

    assertThat(terminated.reservation()).isEqualTo(Reservation.RELEASED);
    assertThat(f.cloud.live(s.id())).isEmpty();
  }
}
