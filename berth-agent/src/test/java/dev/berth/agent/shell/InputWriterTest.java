package dev.berth.agent.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The input queue, against a terminal that stops reading (a stream whose writes block). */
class InputWriterTest {

  /** Blocks every write until released, like a PTY master whose input buffer is full. */
  private static final class StuckTerminal extends OutputStream {
    final CountDownLatch release = new CountDownLatch(1);
    final ByteArrayOutputStream written = new ByteArrayOutputStream();

    @Override
    public void write(int b) {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      synchronized (written) {
        written.write(bytes, offset, length);
      }
    }

    int size() {
      synchronized (written) {
        return written.size();
      }
    }
  }

  @Test
  void refusesInputWithinTheTimeoutOnceTheQueueIsFullAndKeepsTheAcceptedOrder() {
    StuckTerminal terminal = new StuckTerminal();
    InputWriter writer = InputWriter.start(terminal, "test");
    byte[] half = new byte[InputWriter.MAX_PENDING_BYTES / 2];

    writer.submit(half, Duration.ofMillis(100));
    writer.submit(half, Duration.ofMillis(100));
    long before = System.nanoTime();
    assertThatThrownBy(() -> writer.submit(new byte[] {'x'}, Duration.ofMillis(100)))
        .isInstanceOf(ShellInputBlockedException.class)
        .hasMessageContaining("has not read its input");
    assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(2));

    terminal.release.countDown();
    writer.submit(new byte[] {'y'}, Duration.ofSeconds(5));
    await().until(() -> terminal.size() == InputWriter.MAX_PENDING_BYTES + 1);
    writer.stop();
  }
}
