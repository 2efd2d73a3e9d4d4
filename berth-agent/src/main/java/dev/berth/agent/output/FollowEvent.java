package dev.berth.agent.output;

import java.util.Objects;

/** What an {@link OutputFollower} has next for its stream. */
public sealed interface FollowEvent {

  /**
   * Bytes {@code [offset, nextOffset)} of the log, directly after the previous chunk. The array is
   * the event's own; do not change it.
   */
  record Chunk(long offset, byte[] bytes, long nextOffset) implements FollowEvent {
    public Chunk {
      Objects.requireNonNull(bytes, "bytes");
      if (nextOffset != offset + bytes.length) {
        throw new IllegalArgumentException(
            "chunk of "
                + bytes.length
                + " bytes at "
                + offset
                + " must end at "
                + (offset + bytes.length)
                + ", not "
                + nextOffset);
      }
    }
  }

  /**
   * The cursor lay past the end of the log or before its head; the follower continues from {@code
   * nextOffset}, the end of the log at that moment.
   */
  record Reset(long nextOffset) implements FollowEvent {}

  /** Nothing new arrived within the wait. */
  record Idle() implements FollowEvent {}

  /** The log is closed and every byte up to its end has been returned. */
  record Closed() implements FollowEvent {}
}
