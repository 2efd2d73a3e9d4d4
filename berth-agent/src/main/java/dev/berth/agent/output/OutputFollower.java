package dev.berth.agent.output;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * A cursor that walks an {@link OutputLog} for one live stream (SSE or WebSocket): contiguous
 * chunks of at most {@code maxChunk} bytes that end on UTF-8 boundaries, resets when the cursor
 * leaves the log, idles while nothing arrives, and ends once a closed log is drained.
 *
 * <p><b>Hold-back.</b> A chunk that ends inside a valid incomplete UTF-8 sequence is cut before it.
 * At the end of the log that sequence may be completed by the next append, so it is held until more
 * bytes arrive, the log closes, or {@code holdBack} has passed since this follower first saw it
 * there; then it goes out raw. Invalid bytes are never held, so no input stalls a stream. Times are
 * measured with {@link System#nanoTime()}: hold-back is elapsed time, not a calendar decision.
 *
 * <p>Not thread-safe: one follower serves one stream on one thread. It never blocks the writer.
 */
public final class OutputFollower {
  private static final long NOT_HELD = -1;

  private final OutputLog log;
  private final int maxChunk;
  private final long holdBackNanos;
  private long cursor;
  private long heldAt = NOT_HELD;
  private long heldSince;

  /**
   * @param cursor the offset to start from; past the end or before the head gives a {@link
   *     FollowEvent.Reset} first
   * @param maxChunk the most bytes one chunk carries, at least 1
   * @param holdBack how long a trailing incomplete sequence at the end of the log may wait
   */
  public OutputFollower(OutputLog log, long cursor, int maxChunk, Duration holdBack) {
    this.log = Objects.requireNonNull(log, "log");
    if (cursor < 0 || maxChunk < 1 || holdBack.isNegative()) {
      throw new IllegalArgumentException(
          "output follower needs cursor >= 0, maxChunk >= 1 and a non-negative holdBack, were "
              + cursor
              + ", "
              + maxChunk
              + " and "
              + holdBack);
    }
    this.cursor = cursor;
    this.maxChunk = maxChunk;
    this.holdBackNanos = holdBack.toNanos();
  }

  /** The offset of the next byte this follower will return. */
  public long cursor() {
    return cursor;
  }

  /**
   * The next event, waiting up to {@code wait} for bytes to arrive: a chunk or a reset as soon as
   * there is one, {@link FollowEvent.Idle} when the wait passes without, {@link FollowEvent.Closed}
   * once the log is closed and drained (and on every call after that).
   */
  public FollowEvent next(Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + Math.max(0, wait.toNanos());
    while (true) {
      boolean closed = log.isClosed();
      OutputSlice slice = log.read(cursor, maxChunk);
      if (slice.reset() || slice.behind()) {
        return reset(slice.nextOffset());
      }
      if (slice.length() == 0 && closed) {
        return new FollowEvent.Closed();
      }
      int sendable = slice.length() == 0 ? 0 : sendable(slice, closed);
      if (sendable > 0) {
        return chunk(slice, sendable);
      }
      boolean holding = slice.length() > 0;
      long until = holding ? earlier(deadline, heldSince + holdBackNanos) : deadline;
      if (!awaitMore(slice.nextOffset(), until) && System.nanoTime() - deadline >= 0) {
        return new FollowEvent.Idle();
      }
    }
  }

  /** How many bytes of a non-empty slice go out now; 0 while a trailing sequence is held. */
  private int sendable(OutputSlice slice, boolean closed) {
    int length = slice.length();
    boolean atEnd = slice.endOffset() == slice.nextOffset();
    if (!atEnd || closed) {
      heldAt = NOT_HELD;
      return Utf8Boundary.cut(slice.bytes(), length, !atEnd || !closed);
    }
    int tail = Utf8Boundary.incompleteTail(slice.bytes(), length);
    if (tail == 0) {
      heldAt = NOT_HELD;
      return length;
    }
    noteHeld(slice.endOffset() - tail);
    if (tail < length) {
      return length - tail;
    }
    if (System.nanoTime() - heldSince < holdBackNanos) {
      return 0;
    }
    heldAt = NOT_HELD;
    return length;
  }

  private void noteHeld(long offset) {
    if (heldAt != offset) {
      heldAt = offset;
      heldSince = System.nanoTime();
    }
  }

  /** Waits for bytes beyond {@code end} or a close until {@code until}; true if either came. */
  private boolean awaitMore(long end, long until) throws InterruptedException {
    long remaining = until - System.nanoTime();
    boolean more = log.awaitBeyond(end, Duration.ofNanos(Math.max(0, remaining)));
    return more || log.isClosed();
  }

  private FollowEvent reset(long end) {
    cursor = end;
    heldAt = NOT_HELD;
    return new FollowEvent.Reset(end);
  }

  private FollowEvent chunk(OutputSlice slice, int length) {
    byte[] bytes = length == slice.length() ? slice.bytes() : Arrays.copyOf(slice.bytes(), length);
    cursor = slice.offset() + length;
    return new FollowEvent.Chunk(slice.offset(), bytes, cursor);
  }

  private static long earlier(long a, long b) {
    return a - b <= 0 ? a : b;
  }
}
