package dev.berth.agent.output;

/**
 * Where a workload's output bytes go. The PTY pump and the execution runner write here; the output
 * log implements it. Implementations are thread-safe and never block on readers.
 */
public interface OutputSink {

  /** Appends {@code length} bytes of {@code bytes} from {@code offset}. */
  void append(byte[] bytes, int offset, int length);
}
