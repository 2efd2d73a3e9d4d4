package dev.berth.client;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A followed output stream: a session's ({@link BerthClient#follow}) or an execution's ({@link
 * BerthClient#followExecution}), delivered to an {@link OutputListener} until it ends or is closed.
 *
 * <p><b>The contract's client obligations</b> ({@code docs/agent-protocol.md}, "The output stream",
 * and the original platform's SPA rules): every {@code output} event is checked (its id is its
 * {@code nextOffset}, its payload decodes to exactly {@code nextOffset - offset} bytes; a violation
 * ends the follow as {@link StreamEnd.Reason#FAILED} rather than deliver bytes that may be wrong);
 * chunks ending at or before the local cursor are dropped and overlaps are sliced, so a
 * reconnection never duplicates a byte; a chunk starting after the cursor is a gap and the follow
 * reconnects from the cursor at once. On {@code reset} a session's log is re-read from 0 through
 * {@code POST read} (which counts as access, as the contract says), the listener gets the re-read
 * to replace what it showed, and the stream reconnects from the re-read's {@code nextOffset}. The
 * re-read is one capped read (at most 1 MiB): whatever lies beyond it comes through the stream.
 *
 * <p><b>Reconnection</b>: when the connection drops or the server ends the stream, the follow first
 * asks whether there is still something to follow (the session's state: a snapshot, a terminated or
 * a deleted session ends it; the execution's: finished with all its output delivered ends it), then
 * reconnects with {@code Last-Event-ID} set to the local cursor after {@code min(250 ms ×
 * 2^min(n,5), 5000 ms)}, {@code n} counting the attempts since the last connection that delivered
 * anything. Connection failures, 408, 429 and 5xx answers are retried that way; other refusals end
 * the follow as {@link StreamEnd.Reason#FAILED}.
 *
 * <p><b>Concurrency</b>: one thread per follow (virtual) owns the cursor, the parser and the
 * listener calls. {@link #close()} may come from any thread: it sets the closed flag and closes the
 * open response body under the same small lock the follow thread uses to publish it, so a stream
 * opened concurrently with close is closed by whichever side comes second; then it interrupts the
 * follow thread to cut a backoff short.
 */
public final class OutputFollow implements AutoCloseable {

  /** The longest SSE line accepted: a 64 KiB chunk in base64 is about 88 KiB. */
  private static final int MAX_LINE = 1 << 20;

  private static final int READ_BUFFER = 32 << 10;

  private final HttpApi api;
  private final FollowTarget target;
  private final OutputListener listener;
  private final OutputCursor cursor;
  private final CompletableFuture<StreamEnd> end = new CompletableFuture<>();
  private final Object lock = new Object();
  private volatile long position;
  private boolean closed;
  private @Nullable InputStream open;
  private @Nullable StreamState state;
  private Thread thread;

  // thread is set by start(), the only way to make a follow, before it returns the follow.
  @SuppressWarnings("NullAway.Init")
  private OutputFollow(HttpApi api, FollowTarget target, long offset, OutputListener listener) {
    this.api = api;
    this.target = target;
    this.listener = listener;
    this.cursor = new OutputCursor(offset);
    this.position = offset;
  }

  static OutputFollow start(
      HttpApi api, FollowTarget target, long offset, OutputListener listener) {
    OutputFollow follow = new OutputFollow(api, target, offset, listener);
    follow.thread = Thread.ofVirtual().name("berth-follow " + target.describe()).start(follow::run);
    return follow;
  }

  /** The offset after the last byte delivered. */
  public long cursor() {
    return position;
  }

  /** Completes when the follow ended; never completes exceptionally. */
  public CompletableFuture<StreamEnd> ended() {
    return end;
  }

  /** Waits until the follow ended and says why. */
  public StreamEnd await() throws InterruptedException {
    try {
      return end.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("a follow's end never completes exceptionally", e);
    }
  }

  /** Waits at most {@code timeout}; empty when the follow is still running. */
  public Optional<StreamEnd> await(Duration timeout) throws InterruptedException {
    try {
      return Optional.of(end.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      return Optional.empty();
    } catch (ExecutionException e) {
      throw new IllegalStateException("a follow's end never completes exceptionally", e);
    }
  }

  /** Stops following; idempotent. The listener gets no call after {@link #ended()} completes. */
  @Override
  public void close() {
    InputStream toClose;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      toClose = open;
    }
    if (toClose != null) {
      HttpApi.closeQuietly(toClose);
    }
    thread.interrupt();
  }

  private boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }

  private void run() {
    StreamEnd result;
    try {
      result = follow();
    } catch (RuntimeException e) {
      result =
          isClosed()
              ? ended(StreamEnd.Reason.CLOSED, "closed")
              : new StreamEnd(
                  StreamEnd.Reason.FAILED,
                  cursor.position(),
                  String.valueOf(e.getMessage()),
                  Optional.of(e));
    }
    try {
      moveTo(StreamState.OFFLINE);
    } catch (RuntimeException ignored) {
      // The follow is over either way; its end says why.
    }
    end.complete(result);
  }

  /** How one connection ended. */
  private enum Drop {
    /** Dropped or ended by the server: ask the target, back off, reconnect. */
    DROPPED,
    /** A gap or a reset: reconnect from the cursor at once. */
    AT_ONCE
  }

  private StreamEnd follow() {
    int attempt = 0;
    boolean reconnecting = false;
    boolean lastWasAtOnce = false;
    moveTo(StreamState.CONNECTING);
    while (!isClosed()) {
      long before = cursor.position();
      Progress progress = new Progress();
      Drop drop = connect(reconnecting, progress);
      if (isClosed()) {
        break;
      }
      reconnecting = true;
      if (progress.any) {
        attempt = 0;
      }
      boolean delivered = cursor.position() != before;
      if (drop == Drop.AT_ONCE && !(lastWasAtOnce && !delivered)) {
        lastWasAtOnce = true;
        continue;
      }
      lastWasAtOnce = drop == Drop.AT_ONCE;
      StringBuilder detail = new StringBuilder();
      Optional<StreamEnd.Reason> over = over(detail);
      if (over.isPresent()) {
        return ended(over.get(), detail.toString());
      }
      moveTo(StreamState.RECONNECTING);
      if (!sleep(Backoff.delay(attempt++))) {
        break;
      }
    }
    return ended(StreamEnd.Reason.CLOSED, "closed");
  }

  /** Whether a connection delivered anything (an event or a comment): it resets the backoff. */
  private static final class Progress {
    boolean any;
  }

  private Drop connect(boolean reconnecting, Progress progress) {
    InputStream in;
    try {
      long from = cursor.position();
      in =
          api.openStream(
              target.streamPath(from),
              reconnecting ? Optional.of(from) : Optional.empty(),
              target.describe() + "'s output stream");
    } catch (BerthUnreachableException e) {
      return Drop.DROPPED;
    } catch (BerthApiException e) {
      if (retryable(e.status())) {
        return Drop.DROPPED;
      }
      throw e;
    }
    if (!publish(in)) {
      HttpApi.closeQuietly(in);
      return Drop.DROPPED;
    }
    try {
      moveTo(StreamState.LIVE);
      return read(in, progress);
    } catch (IOException | BerthUnreachableException e) {
      return Drop.DROPPED;
    } finally {
      unpublish();
      HttpApi.closeQuietly(in);
    }
  }

  private Drop read(InputStream in, Progress progress) throws IOException {
    SseParser parser = new SseParser(MAX_LINE);
    byte[] buffer = new byte[READ_BUFFER];
    int n;
    while ((n = in.read(buffer)) >= 0) {
      for (Object item : parser.feed(buffer, 0, n)) {
        progress.any = true;
        if (item instanceof SseParser.Event event) {
          Optional<OutputEvent> decoded = OutputEventDecoder.decode(event);
          if (decoded.isPresent() && !handle(decoded.get())) {
            return Drop.AT_ONCE;
          }
        }
      }
    }
    return Drop.DROPPED;
  }

  /** Applies one event; false when the stream must be reopened from the cursor. */
  private boolean handle(OutputEvent event) {
    return switch (event) {
      case OutputEvent.Chunk chunk ->
          switch (cursor.accept(chunk)) {
            case OutputCursor.Deliver deliver -> {
              position = cursor.position();
              listener.output(deliver.chunk());
              yield true;
            }
            case OutputCursor.Drop drop -> true;
            case OutputCursor.Gap gap -> false;
          };
      case OutputEvent.Reset reset -> {
        Optional<ReadResult> reread = target.reread();
        cursor.moveTo(reread.map(ReadResult::nextOffset).orElse(reset.nextOffset()));
        position = cursor.position();
        listener.reset(reset, reread);
        yield reread.isEmpty();
      }
    };
  }

  private Optional<StreamEnd.Reason> over(StringBuilder detail) {
    try {
      return target.over(cursor.position(), detail);
    } catch (BerthUnreachableException e) {
      return Optional.empty();
    } catch (BerthApiException e) {
      if (retryable(e.status())) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private static boolean retryable(int status) {
    return status == 408 || status == 422 || status == 429 || status >= 500;
  }

  private boolean publish(InputStream in) {
    synchronized (lock) {
      if (closed) {
        return false;
      }
      open = in;
      return true;
    }
  }

  private void unpublish() {
    synchronized (lock) {
      open = null;
    }
  }

  private boolean sleep(Duration delay) {
    try {
      Thread.sleep(delay);
      return true;
    } catch (InterruptedException e) {
      if (!isClosed()) {
        Thread.currentThread().interrupt();
      }
      return false;
    }
  }

  private void moveTo(StreamState next) {
    if (state != next) {
      state = next;
      listener.state(next);
    }
  }

  private StreamEnd ended(StreamEnd.Reason reason, String detail) {
    return new StreamEnd(reason, cursor.position(), detail, Optional.empty());
  }
}
