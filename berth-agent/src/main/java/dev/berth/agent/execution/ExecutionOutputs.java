package dev.berth.agent.execution;

import dev.berth.agent.output.OutputSink;
import dev.berth.core.execution.ExecutionId;

/**
 * Where each execution's output goes: the host backs it with one output log per execution under the
 * runtime's state directory.
 */
@FunctionalInterface
public interface ExecutionOutputs {

  /**
   * Opens the output of a new execution. Called once per execution, after its process started and
   * before any of its output is read.
   *
   * @throws RuntimeException when the output cannot be created; the execution is then killed and
   *     not recorded
   */
  OutputSink open(ExecutionId id);

  /**
   * Says that execution {@code id} has finished: its final state is recorded and its output sealed,
   * no byte follows. The host closes the execution's log here, so that streams of it end once they
   * sent everything (as the agent protocol promises) instead of waiting for the runtime to go.
   */
  default void finished(ExecutionId id) {}
}
