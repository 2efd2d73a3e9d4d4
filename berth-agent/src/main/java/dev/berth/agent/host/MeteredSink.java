package dev.berth.agent.host;

import dev.berth.agent.output.OutputSink;

/**
 * An output sink that reports what it passed on: the workload packages write to a sink and know
 * nothing of meters, so the host puts this between them and the log.
 */
final class MeteredSink implements OutputSink {

  private final OutputSink target;
  private final NodeMeters.OutputKind kind;
  private final NodeMeters meters;

  MeteredSink(OutputSink target, NodeMeters.OutputKind kind, NodeMeters meters) {
    this.target = target;
    this.kind = kind;
    this.meters = meters;
  }

  @Override
  public void append(byte[] bytes, int offset, int length) {
    target.append(bytes, offset, length);
    // After the append: bytes a closed log refused were not captured.
    meters.outputCaptured(kind, length);
  }
}
