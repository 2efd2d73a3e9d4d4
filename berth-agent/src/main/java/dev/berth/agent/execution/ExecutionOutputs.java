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
}
