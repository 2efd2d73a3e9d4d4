package dev.berth.core.operation;

import dev.berth.core.transition.TransitionTable;

/** Where an operation stands. SUPERSEDED: a newer intent replaced the one it served. */
public enum OperationState {
  PENDING,
  RUNNING,
  SUCCEEDED,
  FAILED,
  SUPERSEDED;

  /** What happens to an operation. */
  public enum Event {
    START,
    SUCCEED,
    FAIL,
    SUPERSEDE
  }

  public static final TransitionTable<OperationState, Event> TABLE =
      TransitionTable.of("operation", OperationState.class, Event.class)
          .state(PENDING, "a pending operation starts, fails before starting, or is superseded")
          .on(Event.START, RUNNING)
          .on(Event.FAIL, FAILED)
          .on(Event.SUPERSEDE, SUPERSEDED)
          .state(RUNNING, "a running operation ends once: succeeded, failed or superseded")
          .on(Event.SUCCEED, SUCCEEDED)
          .on(Event.FAIL, FAILED)
          .on(Event.SUPERSEDE, SUPERSEDED)
          .state(SUCCEEDED, "a finished operation is final")
          .state(FAILED, "a finished operation is final")
          .state(SUPERSEDED, "a finished operation is final")
          .build();

  public boolean isFinished() {
    return switch (this) {
      case PENDING, RUNNING -> false;
      case SUCCEEDED, FAILED, SUPERSEDED -> true;
    };
  }
}
