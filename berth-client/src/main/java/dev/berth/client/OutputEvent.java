package dev.berth.client;

/**
 * An event of the output stream ({@code docs/agent-protocol.md}, "The output stream"), decoded and
 * checked.
 */
public sealed interface OutputEvent {

  /**
   * Output bytes: exactly the bytes of {@code [offset, nextOffset)} of the log.
   *
   * <p>The array is the caller's to keep; it is not copied, so do not change it if another listener
   * may see it.
   */
  record Chunk(long offset, byte[] bytes, long nextOffset) implements OutputEvent {
    public Chunk {
      if (offset < 0 || nextOffset - offset != bytes.length) {
        throw new IllegalArgumentException(
            "a chunk of " + bytes.length + " bytes cannot span " + offset + ".." + nextOffset);
      }
    }
  }

  /**
   * The cursor jumped to {@code nextOffset}: it was past the end of the log (the log is new, say
   * after a restart) or before the head of a capped log. The bytes before it are not coming.
   */
  record Reset(long nextOffset) implements OutputEvent {}
}
