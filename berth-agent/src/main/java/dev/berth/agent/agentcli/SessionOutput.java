package dev.berth.agent.agentcli;

import dev.berth.agent.output.OutputSink;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An agent session's byte log under its caps: a run writes at most {@link
 * PromptRunner.Limits#runOutputCap}, then {@link PromptRunner#RUN_TRUNCATED}; the session at most
 * {@link PromptRunner.Limits#sessionOutputCap}, then {@link PromptRunner#SESSION_FULL}, after which
 * nothing more is written (also after a restore: the count starts from what the log holds).
 */
final class SessionOutput {

  private final OutputSink sink;
  private final long runCap;
  private final long sessionCap;
  private long written;
  private boolean full;

  SessionOutput(OutputSink sink, long alreadyWritten, PromptRunner.Limits limits) {
    this.sink = sink;
    this.runCap = limits.runOutputCap();
    this.sessionCap = limits.sessionOutputCap();
    this.written = alreadyWritten;
    this.full = alreadyWritten >= sessionCap;
  }

  /** Whether the session's cap was reached: new prompts are refused. */
  synchronized boolean full() {
    return full;
  }

  /** How many bytes the log holds: where the next run's output starts. */
  synchronized long written() {
    return written;
  }

  /** The writer of one run, which counts what it wrote into {@code counted} as well. */
  Run run(AtomicLong counted) {
    return new Run(counted);
  }

  /** One run's share of the log; its writes go one at a time, whole characters only. */
  final class Run {
    private final AtomicLong counted;
    private long runWritten;
    private boolean truncated;

    private Run(AtomicLong counted) {
      this.counted = counted;
    }

    void write(String text) {
      if (text.isEmpty()) {
        return;
      }
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      synchronized (SessionOutput.this) {
        if (full || truncated) {
          return;
        }
        long runRoom = runCap - PromptRunner.RUN_TRUNCATED.length() - runWritten;
        long sessionRoom = sessionCap - PromptRunner.SESSION_FULL.length() - written;
        if (bytes.length <= Math.min(runRoom, sessionRoom)) {
          append(bytes);
          return;
        }
        boolean sessionCut = sessionRoom <= runRoom;
        append(prefix(text, (int) Math.max(0, Math.min(runRoom, sessionRoom))));
        if (sessionCut) {
          append(PromptRunner.SESSION_FULL.getBytes(StandardCharsets.UTF_8));
          full = true;
        } else {
          append(PromptRunner.RUN_TRUNCATED.getBytes(StandardCharsets.UTF_8));
          truncated = true;
        }
      }
    }

    private void append(byte[] bytes) {
      sink.append(bytes, 0, bytes.length);
      runWritten += bytes.length;
      written += bytes.length;
      counted.addAndGet(bytes.length);
    }
  }

  /**
   * The longest prefix of {@code text} whose UTF-8 fits {@code room} bytes, whole characters only.
   */
  static byte[] prefix(String text, int room) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= room) {
      return bytes;
    }
    int end = room;
    while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
      end--;
    }
    return Arrays.copyOf(bytes, end);
  }
}
