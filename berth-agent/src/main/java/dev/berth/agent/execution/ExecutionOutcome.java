package dev.berth.agent.execution;

import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionState;
import java.time.Instant;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * How a command's or a prompt's execution ended, as its runner decided it, and the move of core's
 * execution that records it. Each runner decides by its own precedence (a command closed under a
 * cancel is lost, a prompt cancelled while its runner closes is cancelled); the record is the same.
 */
public enum ExecutionOutcome {
  SUCCEEDED,
  FAILED,
  CANCELLED,
  TIMED_OUT,
  LOST;

  /** As a prompt's transcript says it: {@code succeeded}, {@code timed-out}, ... */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * {@code execution} ended this way, at {@code at}, with its output ending at {@code outputEnd}: a
   * cancel or a timeout cancels it, a loss loses it, an exit records {@code code} (-1 when the
   * process left none). One that never started cannot have exited: it is lost. A finished one is
   * returned as it is.
   */
  public Execution record(Execution execution, OptionalLong code, long outputEnd, Instant at) {
    if (execution.state().isFinished()) {
      return execution;
    }
    return switch (this) {
      case CANCELLED, TIMED_OUT -> execution.cancel(at);
      case LOST -> execution.lose(at);
      case SUCCEEDED, FAILED ->
          execution.state() == ExecutionState.QUEUED
              ? execution.lose(at)
              : execution.exit((int) code.orElse(-1), outputEnd, at);
    };
  }
}
