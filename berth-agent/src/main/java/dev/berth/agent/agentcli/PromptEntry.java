package dev.berth.agent.agentcli;

import dev.berth.agent.execution.ExecutionView;
import dev.berth.core.execution.Execution;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One prompt as its runner keeps it. The queue's lock guards its fields; the count of its output is
 * its run's to add to, and anyone's to read.
 */
final class PromptEntry {
  final Turn turn;
  final long promptBytes;
  final AtomicLong outputBytes = new AtomicLong();
  Execution execution;
  boolean timedOut;
  boolean cancelled;
  @Nullable Process process;

  PromptEntry(Turn turn, long promptBytes, Execution execution) {
    this.turn = turn;
    this.promptBytes = promptBytes;
    this.execution = execution;
  }

  /** The execution's id, which tags its processes and its transcript entries. */
  String id() {
    return execution.id().value();
  }

  ExecutionView view() {
    return new ExecutionView(execution, timedOut, outputBytes.get());
  }
}
