package dev.berth.agent.execution;

import dev.berth.agent.output.OutputSink;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what passes into an execution's sink, and stops passing it on once sealed: output that
 * arrives after the execution was declared finished would contradict its final offset.
 */
final class CountingSink implements OutputSink {
  private final OutputSink target;
  private final AtomicLong count = new AtomicLong();
  private volatile boolean sealed;

  CountingSink(OutputSink target) {
    this.target = target;
  }

  @Override
  public synchronized void append(byte[] bytes, int offset, int length) {
    if (sealed) {
      return;
    }
    target.append(bytes, offset, length);
    count.addAndGet(length);
  }

  long count() {
    return count.get();
  }

  /** Drops everything from now on and returns the final count. */
  synchronized long seal() {
    sealed = true;
    return count.get();
  }
}
