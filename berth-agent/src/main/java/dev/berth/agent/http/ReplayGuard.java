package dev.berth.agent.http;

import dev.berth.core.terminal.QueryNeutraliser;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * The attach's line between replay and live output: what the log held when the client attached
 * (before {@code live}) is replayed with its terminal queries neutralised, so that the client's
 * terminal emulator has nothing to answer into the shell (a {@code vi} in the history asked for the
 * cursor position and colours); what is written from then on passes untouched, because a program
 * running now must get its answers. Byte counts are kept, so the client's cursor stays right.
 */
final class ReplayGuard {

  private final long live;
  private final QueryNeutraliser neutraliser = new QueryNeutraliser();
  private boolean replaying = true;

  ReplayGuard(long live) {
    this.live = live;
  }

  long live() {
    return live;
  }

  /** The bytes to send for the chunk of {@code bytes} that starts at {@code offset}. */
  byte[] pass(long offset, byte[] bytes) {
    if (!replaying) {
      return bytes;
    }
    long replayed = Math.max(0, Math.min(bytes.length, live - offset));
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length);
    out.writeBytes(neutraliser.filter(Arrays.copyOf(bytes, (int) replayed)));
    if (offset + bytes.length >= live) {
      // An unfinished sequence of the history is blanked too: live bytes must not complete it.
      out.writeBytes(new byte[neutraliser.finish().length]);
      replaying = false;
      out.writeBytes(Arrays.copyOfRange(bytes, (int) replayed, bytes.length));
    }
    return out.toByteArray();
  }

  /**
   * What is held when the cursor jumps ahead (a reset), blanked (the bytes after the jump must not
   * complete it), to be sent before the jump.
   */
  byte[] release() {
    return new byte[neutraliser.finish().length];
  }
}
