package dev.berth.core.session;

import dev.berth.core.transition.TransitionTable;

/**
 * The observed lifecycle of a session. A phase exists only where it leads to different behaviour or
 * a different user action; the transitions between phases are all in {@link #TABLE}.
 */
public enum Phase {
  REQUESTED,
  PROVISIONING,
  READY,
  SUSPENDING,
  SUSPENDED,
  RESUMING,
  TERMINATING,
  TERMINATED,
  FAILED;

  /** The session phase table: the only place that says which moves are legal. */
  public static final TransitionTable<Phase, PhaseEvent> TABLE =
      TransitionTable.of("session", Phase.class, PhaseEvent.class)
          .state(REQUESTED, "a requested session has no runtime yet; it can only be provisioned")
          .on(PhaseEvent.PROVISION_STARTED, PROVISIONING)
          .on(PhaseEvent.TERMINATE_STARTED, TERMINATING)
          .on(PhaseEvent.FAILED, FAILED)
          .state(
              PROVISIONING,
              "a provisioning session becomes ready only when its readiness conjunction holds")
          .on(PhaseEvent.BECAME_READY, READY)
          .on(PhaseEvent.TERMINATE_STARTED, TERMINATING)
          .on(PhaseEvent.FAILED, FAILED)
          .state(
              READY,
              "a ready session can be suspended, recovered after losing its runtime,"
                  + " or terminated")
          .on(PhaseEvent.SUSPEND_STARTED, SUSPENDING)
          .on(PhaseEvent.RECOVERY_STARTED, RESUMING)
          .on(PhaseEvent.TERMINATE_STARTED, TERMINATING)
          .on(PhaseEvent.FAILED, FAILED)
          .state(
              SUSPENDING,
              "a suspend either completes after its archive was committed and the runtime"
                  + " removed, or is aborted back to READY")
          .on(PhaseEvent.SUSPEND_COMPLETED, SUSPENDED)
          .on(PhaseEvent.SUSPEND_ABORTED, READY)
          .on(PhaseEvent.TERMINATE_STARTED, TERMINATING)
          .on(PhaseEvent.FAILED, FAILED)
          .state(
              SUSPENDED,
              "a suspended session holds no runtime; it can only be resumed or" + " terminated")
          .on(PhaseEvent.RESUME_STARTED, RESUMING)
          .on(PhaseEvent.TERMINATE_STARTED, TERMINATING)
          .state(
              RESUMING,
              "a resuming session becomes ready only when its readiness conjunction holds,"
                  + " with the archive restored and verified")
          .on(PhaseEvent.BECAME_READY, READY)
          .on(PhaseEvent.TERMINATE_STARTED, TERMINATING)
          .on(PhaseEvent.FAILED, FAILED)
          .state(
              TERMINATING,
              "termination is a workflow that only goes forward; what cannot be done stays an"
                  + " obligation")
          .on(PhaseEvent.TERMINATE_COMPLETED, TERMINATED)
          .state(TERMINATED, "a terminated session is final")
          .state(
              FAILED,
              "a failed session keeps its failure reason until it is recovered from its archive"
                  + " or terminated")
          .on(PhaseEvent.RECOVERY_STARTED, RESUMING)
          .on(PhaseEvent.TERMINATE_STARTED, TERMINATING)
          .build();

  /** Whether the session may hold a runtime in this phase. */
  public boolean mayHoldRuntime() {
    return switch (this) {
      case REQUESTED, SUSPENDED, TERMINATED -> false;
      case PROVISIONING, READY, SUSPENDING, RESUMING, TERMINATING, FAILED -> true;
    };
  }

  public boolean isFinal() {
    return this == TERMINATED;
  }
}
