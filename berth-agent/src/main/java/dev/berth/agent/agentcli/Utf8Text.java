package dev.berth.agent.agentcli;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes a byte stream that should be UTF-8 (a CLI's diagnostics) into text piece by piece:
 * malformed bytes become U+FFFD, and the bytes of a character split across pieces are held until it
 * completes, so that no piece ends inside a character. Not thread-safe: one per stream.
 */
public final class Utf8Text {

  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE);
  private ByteBuffer pending = ByteBuffer.allocate(0);

  /** The text of {@code bytes[offset, offset+length)} after what came before. */
  public String decode(byte[] bytes, int offset, int length) {
    ByteBuffer in = ByteBuffer.allocate(pending.remaining() + length);
    in.put(pending).put(bytes, offset, length).flip();
    CharBuffer out = CharBuffer.allocate(in.remaining() + 1);
    decoder.decode(in, out, false);
    pending = in.slice();
    return out.flip().toString();
  }

  /** The end of the stream: a character left incomplete becomes U+FFFD. */
  public String finish() {
    CharBuffer out = CharBuffer.allocate(pending.remaining() + 2);
    decoder.decode(pending, out, true);
    decoder.flush(out);
    decoder.reset();
    pending = ByteBuffer.allocate(0);
    return out.flip().toString();
  }
}
