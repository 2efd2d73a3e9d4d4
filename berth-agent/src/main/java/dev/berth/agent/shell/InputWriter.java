package dev.berth.agent.shell;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Writes input to the PTY master on a thread of its own, so that a caller never waits for the shell
 * to read it.
 *
 * <p>A write to the master blocks while the terminal's input buffer is full, which happens when a
 * program holds the terminal in raw mode without reading. Callers only enqueue; the queue holds at
 * most {@link #MAX_PENDING_BYTES}. When it is full, {@link #submit} waits up to its timeout for
 * room and then refuses the input whole ({@link ShellInputBlockedException}), so memory and caller
 * latency stay bounded and accepted input keeps its order.
 */
final class InputWriter {
  static final int MAX_PENDING_BYTES = 4 * 1024 * 1024;

  private final OutputStream pty;
  private final String session;
  private final Semaphore room = new Semaphore(MAX_PENDING_BYTES, true);
  private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean failed;

  private InputWriter(OutputStream pty, String session) {
    this.pty = pty;
    this.session = session;
    this.thread =
        Thread.ofPlatform().daemon().name("berth-pty-input-" + session).unstarted(this::run);
  }

  static InputWriter start(OutputStream pty, String session) {
    InputWriter writer = new InputWriter(pty, session);
    writer.thread.start();
    return writer;
  }

  /** Whether a write to the PTY failed: the terminal is gone. */
  boolean failed() {
    return failed;
  }

  /**
   * Queues {@code input} behind earlier input.
   *
   * @throws ShellInputBlockedException when there was no room within {@code timeout}
   * @throws IllegalArgumentException when {@code input} is larger than the whole queue
   */
  void submit(byte[] input, Duration timeout) {
    if (input.length == 0) {
      return;
    }
    if (input.length > MAX_PENDING_BYTES) {
      throw new IllegalArgumentException(
          "input of " + input.length + " bytes exceeds the limit of " + MAX_PENDING_BYTES);
    }
    try {
      if (!room.tryAcquire(input.length, timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new ShellInputBlockedException(
            "the shell of "
                + session
                + " has not read its input for "
                + timeout.toSeconds()
                + " s and "
                + (MAX_PENDING_BYTES - room.availablePermits())
                + " bytes are waiting; this input of "
                + input.length
                + " bytes was not written");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ShellInputBlockedException("interrupted while waiting to write to " + session);
    }
    queue.add(input.clone());
  }

  void stop() {
    thread.interrupt();
  }

  private void run() {
    try {
      while (true) {
        byte[] chunk = queue.take();
        try {
          pty.write(chunk);
          pty.flush();
        } catch (IOException e) {
          failed = true;
          return;
        } finally {
          room.release(chunk.length);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
