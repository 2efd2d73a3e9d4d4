package dev.berth.agent.execution;

import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionState;
import java.util.Objects;

/**
 * An execution as this host sees it at one moment.
 *
 * @param timedOut whether it was cancelled because it outlived its timeout
 * @param outputBytes how many output bytes it has produced so far (the {@code nextOffset} of its
 *     output log)
 */
public record ExecutionView(Execution execution, boolean timedOut, long outputBytes) {

  public ExecutionView {
    Objects.requireNonNull(execution, "execution");
  }

  public ExecutionId id() {
    return execution.id();
  }

  public ExecutionState state() {
    return execution.state();
  }

  /** As the agent protocol reports it. */
  public dev.berth.core.agent.ExecutionReport report() {
    return new dev.berth.core.agent.ExecutionReport(
        execution.id(),
        execution.command(),
        execution.state(),
        execution.exitCode(),
        execution.submittedAt(),
        execution.startedAt(),
        execution.finishedAt(),
        timedOut,
        outputBytes);
  }
}
