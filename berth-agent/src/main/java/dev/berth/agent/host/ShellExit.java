package dev.berth.agent.host;

import java.time.Instant;

/**
 * How a runtime's shell ended: the shell is one execution of the runtime, and the runtime outlives
 * it (the next input or attach starts a new one).
 *
 * @param status the exit status; 128+n when signal n ended it
 * @param at when it was observed, after its output was drained
 * @param shell which shell of the runtime it was: 1 for the first
 * @param markerEnd the output offset just past the marker line, or -1 when none was written (the
 *     host ended the shell)
 */
public record ShellExit(int status, Instant at, int shell, long markerEnd) {

  /** The marker line written into the output, after everything the shell wrote. */
  String marker() {
    return "\r\n[berth] the shell exited with status "
        + status
        + (status > 128 ? " (signal " + (status - 128) + ")" : "")
        + "; the session stays active, and the next input or attach starts a new shell\r\n";
  }
}
