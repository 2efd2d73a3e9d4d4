package dev.berth.client;

import java.util.Arrays;

/**
 * The client's position in an output log and the contract's rules for what to do with an arriving
 * chunk: drop it when it ends at or before the position (a replay after a reconnection), slice off
 * the part before the position (an overlap), deliver it when it starts there, and report a gap when
 * it starts after the position (the caller reconnects from the position).
 *
 * <p>Not thread-safe: owned by the thread that follows the stream.
 */
final class OutputCursor {

  /** What to do with a chunk. */
  sealed interface Verdict {}

  /** Deliver these bytes; the cursor moved to their end. */
  record Deliver(OutputEvent.Chunk chunk) implements Verdict {}

  /** Nothing new in it. */
  record Drop() implements Verdict {}

  /** It starts after the cursor: bytes between are missing. */
  record Gap(long expected, long actual) implements Verdict {}

  private long position;

  OutputCursor(long position) {
    if (position < 0) {
      throw new IllegalArgumentException("an output cursor is >= 0, was " + position);
    }
    this.position = position;
  }

  long position() {
    return position;
  }

  Verdict accept(OutputEvent.Chunk chunk) {
    if (chunk.nextOffset() <= position) {
      return new Drop();
    }
    if (chunk.offset() > position) {
      return new Gap(position, chunk.offset());
    }
    OutputEvent.Chunk delivered =
        chunk.offset() == position
            ? chunk
            : new OutputEvent.Chunk(
                position,
                Arrays.copyOfRange(
                    chunk.bytes(), (int) (position - chunk.offset()), chunk.bytes().length),
                chunk.nextOffset());
    position = chunk.nextOffset();
    return new Deliver(delivered);
  }

  void moveTo(long offset) {
    position = offset;
  }
}
