package dev.berth.agent.host;

import dev.berth.core.transition.TransitionTable;

/**
 * Where a hosted runtime's workload stands. A shell that exits is observed and reported, never
 * restarted with an empty buffer; a runtime stopped by the host (lease expiry, maximum lifetime,
 * host restart) says why.
 */
public enum RuntimeState {
  RUNNING,
  /** Paused for a checkpoint: admission closed, the whole process tree stopped (SIGSTOP). */
  PAUSED,
  EXITED,
  STOPPED,
  TERMINATED;

  /** What happens to a hosted runtime. */
  public enum Event {
    SHELL_EXITED,
    PAUSE,
    CONTINUE,
    STOP,
    TERMINATE
  }

  public static final TransitionTable<RuntimeState, Event> TABLE =
      TransitionTable.of("hosted runtime", RuntimeState.class, Event.class)
          .state(RUNNING, "a running shell exits by itself, is stopped by the host, or terminated")
          .on(Event.SHELL_EXITED, EXITED)
          .on(Event.PAUSE, PAUSED)
          .on(Event.STOP, STOPPED)
          .on(Event.TERMINATE, TERMINATED)
          .state(PAUSED, "a paused runtime continues (checkpoint aborted), or is stopped or ended")
          .on(Event.CONTINUE, RUNNING)
          .on(Event.SHELL_EXITED, EXITED)
          .on(Event.STOP, STOPPED)
          .on(Event.TERMINATE, TERMINATED)
          .state(EXITED, "an exited shell can only be terminated; it is never restarted")
          .on(Event.TERMINATE, TERMINATED)
          .state(STOPPED, "a stopped runtime can only be terminated; it is never restarted")
          .on(Event.TERMINATE, TERMINATED)
          .state(TERMINATED, "a terminated runtime is final")
          .build();

  /** The health word reported by the status route, as the original agent's /healthz said it. */
  public String health() {
    return switch (this) {
      case RUNNING -> "ok";
      case PAUSED -> "paused for a checkpoint";
      case EXITED -> "shell exited";
      case STOPPED -> "stopped";
      case TERMINATED -> "terminated";
    };
  }

  public String wire() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
