package dev.berth.agent.http;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Disconnects consumers that stop taking output, so that no client can make the host hold a
 * connection, its thread, its open log files and its buffers for ever.
 *
 * <p><b>The rule.</b> One write to a client (an SSE event, a chunk of a read's answer, a WebSocket
 * frame) must be taken by the client's connection within {@code timeout}. A write blocks only when
 * the socket buffers towards the client are full, that is when the client has stopped reading (or
 * reads slower than one write per {@code timeout}). Then the connection is dropped; the client can
 * reconnect with its cursor. What the host holds for a stalled client meanwhile is bounded: the one
 * write in progress (at most an SSE event or a WebSocket frame of 64 KiB, or a generator buffer of
 * a read) and the server's response buffer; the rest is in the kernel's socket buffers.
 *
 * <p><b>How.</b> HTTP responses are written through {@link #guard guarded streams}, which note when
 * a write starts and ends; one scanner thread looks at the writes in progress four times per {@code
 * timeout} and aborts the connection of one that has been blocked longer. WebSocket frames are sent
 * asynchronously and awaited with the timeout ({@link #await}). Waiting for output to arrive is not
 * a stall: only a write in progress is timed.
 */
final class StallWatch implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StallWatch.class);
  private static final long NOT_WRITING = Long.MIN_VALUE;

  private final Duration timeout;
  private final Set<Guarded> writing = ConcurrentHashMap.newKeySet();
  private final AtomicLong disconnected = new AtomicLong();
  private final ScheduledExecutorService scanner;

  StallWatch(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(
          "stall timeout must be positive, was " + timeout + "; pass e.g. 30s");
    }
    this.timeout = timeout;
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            1, runnable -> Thread.ofPlatform().daemon().name("stall-watch").unstarted(runnable));
    executor.setRemoveOnCancelPolicy(true);
    long period = Math.max(10, timeout.toMillis() / 4);
    var unused = executor.scheduleWithFixedDelay(this::scan, period, period, TimeUnit.MILLISECONDS);
    this.scanner = executor;
  }

  Duration timeout() {
    return timeout;
  }

  /** How many connections were dropped for stalling since the host started. */
  long disconnected() {
    return disconnected.get();
  }

  /**
   * {@code out}, with every write and flush timed: one blocked longer than the timeout runs {@code
   * abort}, which must close the connection so that the blocked call fails.
   *
   * @param subject names the consumer in the log line, e.g. the route and session
   */
  OutputStream guard(OutputStream out, String subject, Runnable abort) {
    return new Guarded(out, subject, abort);
  }

  /**
   * Waits for an asynchronous send to complete, at most the timeout; on timeout runs {@code abort}
   * (which must drop the connection) and throws.
   *
   * @throws StalledException when the send did not complete in time
   * @throws ExecutionException when the send failed (the client went away)
   */
  void await(Future<?> sent, String subject, Runnable abort)
      throws InterruptedException, ExecutionException, StalledException {
    try {
      sent.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      stalled(subject, abort);
      throw new StalledException(subject, timeout);
    }
  }

  // writing is a concurrent set: its iterator is weakly consistent, so removing is safe here.
  @SuppressWarnings("ModifyCollectionInEnhancedForLoop")
  private void scan() {
    long now = System.nanoTime();
    for (Guarded guarded : writing) {
      long since = guarded.since;
      if (since != NOT_WRITING && now - since > timeout.toNanos() && guarded.abort()) {
        writing.remove(guarded);
        stalled(guarded.subject, guarded.abort);
      }
    }
  }

  private void stalled(String subject, Runnable abort) {
    disconnected.incrementAndGet();
    LOG.info(
        "{} - the client took no output for {}; disconnected (it may reconnect from its cursor)",
        subject,
        timeout);
    try {
      abort.run();
    } catch (RuntimeException e) {
      LOG.warn("{} - cannot drop the stalled connection: {}", subject, e.toString());
    }
  }

  @Override
  public void close() {
    scanner.shutdownNow();
  }

  /** A write that the client did not take within the stall timeout. */
  static final class StalledException extends IOException {
    private static final long serialVersionUID = 1L;

    StalledException(String subject, Duration timeout) {
      super(
          subject
              + ": the client took no output for "
              + timeout
              + "; the connection was dropped, reconnect from the last cursor");
    }
  }

  private final class Guarded extends FilterOutputStream {
    private final String subject;
    private final Runnable abort;
    private volatile long since = NOT_WRITING;
    private volatile boolean aborted;

    Guarded(OutputStream out, String subject, Runnable abort) {
      super(Objects.requireNonNull(out, "out"));
      this.subject = subject;
      this.abort = abort;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      begin();
      try {
        out.write(bytes, offset, length);
      } finally {
        end();
      }
    }

    @Override
    public void flush() throws IOException {
      begin();
      try {
        out.flush();
      } finally {
        end();
      }
    }

    @Override
    public void close() throws IOException {
      end();
      super.close();
    }

    /** True the first time: the scanner aborts a connection once. */
    private boolean abort() {
      if (aborted) {
        return false;
      }
      aborted = true;
      return true;
    }

    private void begin() throws IOException {
      if (aborted) {
        throw new StalledException(subject, timeout);
      }
      since = System.nanoTime();
      writing.add(this);
    }

    private void end() {
      since = NOT_WRITING;
      writing.remove(this);
    }
  }
}
