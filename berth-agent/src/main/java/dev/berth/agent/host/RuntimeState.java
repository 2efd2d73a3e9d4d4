package dev.berth.agent.host;

import dev.berth.core.transition.TransitionTable;

/**
 * Where a hosted runtime stands. Its shell is one execution of it, not the runtime: a shell that
 * exits leaves the runtime RUNNING (ShellSlot reports the exit and starts a new shell on the next
 * input); a runtime stopped by the host (lease expiry, maximum lifetime, host restart) says why.
 * {@link RuntimeLifecycle} alone moves a runtime through {@link #TABLE}.
 */
public enum RuntimeState {
  /**
   * Provisioned to receive an archive (a resume): its directory exists, nothing runs and its output
   * is not open, because the restore replaces its {@code state/} whole.
   */
  AWAITING_RESTORE,
  RUNNING,
  /** Paused for a checkpoint: admission closed, the whole process tree stopped (SIGSTOP). */
  PAUSED,
  STOPPED,
  TERMINATED;

  /** What happens to a hosted runtime. */
  public enum Event {
    /**
     * The shell started on the runtime's state: at once for a fresh runtime (before anyone sees
     * it), once the archive is restored for a resumed one.
     */
    SHELL_STARTED,
    PAUSE,
    CONTINUE,
    STOP,
    TERMINATE
  }

  public static final TransitionTable<RuntimeState, Event> TABLE =
      TransitionTable.of("hosted runtime", RuntimeState.class, Event.class)
          .state(
              AWAITING_RESTORE,
              "a runtime awaiting its archive starts once it is restored, or is stopped or ended")
          .on(Event.SHELL_STARTED, RUNNING)
          .on(Event.STOP, STOPPED)
          .on(Event.TERMINATE, TERMINATED)
          .state(
              RUNNING,
              "a running runtime (whose shell may have exited) is paused, stopped by the host, or"
                  + " terminated")
          .on(Event.PAUSE, PAUSED)
          .on(Event.STOP, STOPPED)
          .on(Event.TERMINATE, TERMINATED)
          .state(PAUSED, "a paused runtime continues (checkpoint aborted), or is stopped or ended")
          .on(Event.CONTINUE, RUNNING)
          .on(Event.STOP, STOPPED)
          .on(Event.TERMINATE, TERMINATED)
          .state(STOPPED, "a stopped runtime can only be terminated; it is never restarted")
          .on(Event.TERMINATE, TERMINATED)
          .state(TERMINATED, "a terminated runtime is final")
          .build();

  /** The health word reported by the status route, as the original agent's /healthz said it. */
  public String health() {
    return switch (this) {
      case AWAITING_RESTORE -> "awaiting its archive";
      case RUNNING -> "ok";
      case PAUSED -> "paused for a checkpoint";
      case STOPPED -> "stopped";
      case TERMINATED -> "terminated";
    };
  }

  /** The state word of the status route: {@code running}, {@code awaiting-restore}, … */
  public String wire() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
