package dev.berth.agent.output;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/** Test data: bytes whose value depends on their absolute offset, random bytes, UTF-8 text. */
final class TestBytes {
  private TestBytes() {}

  /** The bytes at offsets {@code [from, from + length)} of an endless, non-repeating pattern. */
  static byte[] pattern(long from, int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      long offset = from + i;
      bytes[i] = (byte) ((offset * 0x9E3779B97F4A7C15L) >>> 56);
    }
    return bytes;
  }

  static byte[] random(long seed, int length) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] concat(byte[]... parts) {
    int length = 0;
    for (byte[] part : parts) {
      length += part.length;
    }
    byte[] all = new byte[length];
    int at = 0;
    for (byte[] part : parts) {
      System.arraycopy(part, 0, all, at, part.length);
      at += part.length;
    }
    return all;
  }

  static void append(OutputLog log, byte[] bytes) {
    log.append(bytes, 0, bytes.length);
  }
}
