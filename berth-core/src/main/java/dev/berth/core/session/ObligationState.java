package dev.berth.core.session;

import dev.berth.core.transition.TransitionTable;

/** Where an owed piece of cleanup stands. */
public enum ObligationState {
  PENDING,
  DONE,
  FAILED,
  /** Deliberately kept until a date (archive retention); then due again. */
  RETAINED;

  /** What happens to an obligation. */
  public enum Event {
    COMPLETE,
    FAIL,
    RETAIN,
    RETRY
  }

  public static final TransitionTable<ObligationState, Event> TABLE =
      TransitionTable.of("obligation", ObligationState.class, Event.class)
          .state(PENDING, "a pending obligation is completed, fails or is retained")
          .on(Event.COMPLETE, DONE)
          .on(Event.FAIL, FAILED)
          .on(Event.RETAIN, RETAINED)
          .state(DONE, "a done obligation is final")
          .state(FAILED, "a failed obligation is retried or found done")
          .on(Event.RETRY, PENDING)
          .on(Event.COMPLETE, DONE)
          .state(RETAINED, "a retained obligation is due again when its retention ends")
          .on(Event.RETRY, PENDING)
          .on(Event.COMPLETE, DONE)
          .build();
}
