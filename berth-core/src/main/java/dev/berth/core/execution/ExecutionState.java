package dev.berth.core.execution;

import dev.berth.core.transition.TransitionTable;

/** Where an execution stands. LOST means the runtime vanished while it ran: outcome unknown. */
public enum ExecutionState {
  QUEUED,
  RUNNING,
  SUCCEEDED,
  FAILED,
  CANCELLED,
  LOST;

  /** What happens to an execution. */
  public enum Event {
    START,
    SUCCEED,
    FAIL,
    CANCEL,
    LOSE
  }

  public static final TransitionTable<ExecutionState, Event> TABLE =
      TransitionTable.of("execution", ExecutionState.class, Event.class)
          .state(QUEUED, "a queued execution starts, is cancelled, or is lost with its runtime")
          .on(Event.START, RUNNING)
          .on(Event.CANCEL, CANCELLED)
          .on(Event.LOSE, LOST)
          .state(RUNNING, "a running execution ends once: succeeded, failed, cancelled or lost")
          .on(Event.SUCCEED, SUCCEEDED)
          .on(Event.FAIL, FAILED)
          .on(Event.CANCEL, CANCELLED)
          .on(Event.LOSE, LOST)
          .state(SUCCEEDED, "a finished execution is final")
          .state(FAILED, "a finished execution is final")
          .state(CANCELLED, "a finished execution is final")
          .state(
              LOST,
              "a lost execution is final: its outcome is unknown and completed external effects"
                  + " may remain")
          .build();

  public boolean isFinished() {
    return switch (this) {
      case QUEUED, RUNNING -> false;
      case SUCCEEDED, FAILED, CANCELLED, LOST -> true;
    };
  }
}
