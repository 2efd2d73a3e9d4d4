package dev.berth.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.agent.contract.ControlLease;
import dev.berth.core.error.IllegalTransitionException;
import dev.berth.protocol.problem.AgentReason;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The moves of a runtime's lifecycle that need no process: awaiting, stopping, terminating. */
class RuntimeLifecycleTest {

  private final RuntimeLifecycle awaiting =
      new RuntimeLifecycle(
          "berth-rt-1", new Workload.Awaiting(), RuntimeState.AWAITING_RESTORE, Optional.empty());

  @Test
  void aRuntimeStoppedByItsLeaseSaysWhichReasonTheLeaseGaveLast() {
    awaiting.leaseStopsFor("MAX_LIFETIME");

    awaiting.stopForLease();

    assertThat(awaiting.state()).isEqualTo(RuntimeState.STOPPED);
    assertThat(awaiting.stopReason()).contains("MAX_LIFETIME");
  }

  @Test
  void aLeaseThatGaveNoReasonStopsTheRuntimeAsExpired() {
    awaiting.stopForLease();

    assertThat(awaiting.stopReason()).contains(ControlLease.LEASE_EXPIRED);
  }

  @Test
  void aStoppedRuntimeKeepsItsFirstStopReasonAndRefusesToStartAWorkload() {
    awaiting.stop("LEASE_EXPIRED");
    awaiting.stop("MAX_LIFETIME");

    assertThat(awaiting.stopReason()).contains("LEASE_EXPIRED");
    assertThatThrownBy(() -> awaiting.install(new Workload.Awaiting()))
        .isInstanceOfSatisfying(
            HostRefusal.class,
            r -> {
              assertThat(r.status()).isEqualTo(409);
              assertThat(r.reason()).isEqualTo(AgentReason.CONFLICT);
            })
        .hasMessageContaining("is stopped, not awaiting an archive");
    assertThat(awaiting.state()).isEqualTo(RuntimeState.STOPPED);
  }

  @Test
  void aTerminatedRuntimeIsFinalAndAStopAfterItChangesNothing() {
    awaiting.terminate();
    awaiting.terminate();
    awaiting.stop("LEASE_EXPIRED");

    assertThat(awaiting.state()).isEqualTo(RuntimeState.TERMINATED);
    assertThat(awaiting.stopReason()).isEmpty();
  }

  @Test
  void aRuntimeThatIsNotPausedIgnoresAContinueAndOneAwaitingItsArchiveCannotBePaused() {
    awaiting.unpause();
    assertThat(awaiting.state()).isEqualTo(RuntimeState.AWAITING_RESTORE);

    assertThatThrownBy(awaiting::pause)
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("berth-rt-1");
    assertThat(awaiting.state()).isEqualTo(RuntimeState.AWAITING_RESTORE);
  }

  @Test
  void closingHandsBackWhatRanAndMarksTheRuntimeClosing() {
    Workload closed = awaiting.close();

    assertThat(closed).isInstanceOf(Workload.Awaiting.class);
    assertThat(awaiting.closing()).isTrue();
  }
}
