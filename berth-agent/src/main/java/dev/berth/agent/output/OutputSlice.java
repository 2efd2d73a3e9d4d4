package dev.berth.agent.output;

import java.util.Objects;

/**
 * The answer to one {@link OutputLog#read read}: the bytes from {@code offset} on, and where the
 * log stood at that moment.
 *
 * <p>{@code offset} is where the bytes begin. It is the {@code requested} cursor when that cursor
 * lies within the log, the head ({@code startOffset}) when the cursor fell off the head of a capped
 * log ({@link #behind()}), and the end ({@code nextOffset}) when the cursor lies past the end
 * ({@link #reset()}, no bytes). Always {@code startOffset <= offset <= endOffset() <= nextOffset}.
 *
 * <p>{@code bytes} is not copied: the log hands every slice a fresh array, and whoever holds the
 * slice must not change it.
 *
 * @param requested the cursor the reader asked for
 * @param offset the absolute offset of {@code bytes[0]}
 * @param bytes the bytes read
 * @param nextOffset the log's length when it was read: the offset its next byte will have
 * @param startOffset the log's head when it was read: the oldest offset still retained
 */
public record OutputSlice(
    long requested, long offset, byte[] bytes, long nextOffset, long startOffset) {

  public OutputSlice {
    Objects.requireNonNull(bytes, "bytes");
    if (requested < 0 || startOffset < 0 || offset < startOffset) {
      throw new IllegalArgumentException(
          "output slice offsets must satisfy 0 <= startOffset <= offset, were requested="
              + requested
              + " offset="
              + offset
              + " startOffset="
              + startOffset);
    }
    if (offset + bytes.length > nextOffset) {
      throw new IllegalArgumentException(
          "output slice of "
              + bytes.length
              + " bytes at "
              + offset
              + " ends past the log's nextOffset "
              + nextOffset);
    }
  }

  /** The cursor lay past the end of the log: the reader must start over from {@code nextOffset}. */
  public boolean reset() {
    return requested > nextOffset;
  }

  /** The cursor fell off the head of a capped log: the bytes start at the head instead. */
  public boolean behind() {
    return requested < startOffset;
  }

  public int length() {
    return bytes.length;
  }

  /** The offset after the last byte of this slice: the cursor for the next read. */
  public long endOffset() {
    return offset + bytes.length;
  }
}
