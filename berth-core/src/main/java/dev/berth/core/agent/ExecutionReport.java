package dev.berth.core.agent;

import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionState;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * An execution as the agent running it reports it.
 *
 * @param timedOut whether it was cancelled because it outlived its timeout
 * @param outputBytes how much output it has written so far (its output's {@code nextOffset})
 */
public record ExecutionReport(
    ExecutionId id,
    String command,
    ExecutionState state,
    Optional<Integer> exitCode,
    Instant submittedAt,
    Optional<Instant> startedAt,
    Optional<Instant> finishedAt,
    boolean timedOut,
    long outputBytes) {
  public ExecutionReport {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(exitCode, "exitCode");
    Objects.requireNonNull(submittedAt, "submittedAt");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(finishedAt, "finishedAt");
  }
}
