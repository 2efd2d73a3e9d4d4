package dev.berth.agent.testing;

import static org.awaitility.Awaitility.await;

import dev.berth.agent.output.OutputSink;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** An in-memory {@link OutputSink} for tests: collects bytes and waits for text to show up. */
public final class CollectingSink implements OutputSink {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

  @Override
  public synchronized void append(byte[] buffer, int offset, int length) {
    bytes.write(buffer, offset, length);
  }

  public synchronized String text() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  public synchronized int size() {
    return bytes.size();
  }

  /** Waits up to {@code timeout} for {@code expected} to appear and returns the whole text. */
  public String awaitText(String expected, Duration timeout) {
    await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(10))
        .alias("output containing \"" + expected + "\"")
        .until(() -> text().contains(expected));
    return text();
  }

  /** {@link #awaitText(String, Duration)} with five seconds. */
  public String awaitText(String expected) {
    return awaitText(expected, Duration.ofSeconds(5));
  }
}
