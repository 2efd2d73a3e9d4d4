package dev.berth.agent.output;

import java.util.Objects;

/**
 * Where to end a chunk of output so that it does not split a UTF-8 character, without ever letting
 * invalid bytes hold a stream up.
 *
 * <p>Only a <em>valid incomplete prefix</em> of a multi-byte sequence is ever held: a lead byte
 * (C2–F4) followed by fewer continuation bytes than it announces, with the second byte in the range
 * Unicode allows after that lead (no overlong forms, no surrogates, nothing above U+10FFFF).
 * Everything else (ASCII, stray continuation bytes, C0, C1, F5–FF) is a boundary as it stands.
 */
public final class Utf8Boundary {
  private static final int MAX_SEQUENCE = 4;

  private Utf8Boundary() {}

  /**
   * How many bytes of the chunk {@code bytes[0, length)} to send now. When the chunk ends inside a
   * valid incomplete sequence and {@code more} bytes may follow, the answer backs off to the
   * sequence start, provided that leaves at least one byte; when no boundary exists in the chunk,
   * or nothing can follow ({@code more} false), it is {@code length}.
   *
   * @param more whether bytes may still follow this chunk and complete a trailing sequence
   */
  public static int cut(byte[] bytes, int length, boolean more) {
    int tail = incompleteTail(bytes, length);
    return more && tail > 0 && tail < length ? length - tail : length;
  }

  /**
   * The length of the valid incomplete sequence that ends the chunk {@code bytes[0, length)}: 1 to
   * 3, or 0 when the chunk ends on a boundary (or in invalid bytes).
   */
  public static int incompleteTail(byte[] bytes, int length) {
    Objects.checkFromIndexSize(0, length, bytes.length);
    int continuations = 0;
    while (continuations < MAX_SEQUENCE - 1
        && continuations < length
        && isContinuation(bytes[length - 1 - continuations])) {
      continuations++;
    }
    int lead = length - 1 - continuations;
    if (lead < 0) {
      return 0;
    }
    int announced = sequenceLength(bytes[lead]);
    boolean incomplete = continuations + 1 < announced;
    boolean valid = continuations == 0 || secondByteFits(bytes[lead], bytes[lead + 1]);
    return incomplete && valid ? continuations + 1 : 0;
  }

  private static boolean isContinuation(byte b) {
    return (b & 0xC0) == 0x80;
  }

  /** The length a lead byte announces, or 0 for a byte that cannot start a multi-byte sequence. */
  private static int sequenceLength(byte lead) {
    int b = lead & 0xFF;
    if (b >= 0xC2 && b <= 0xDF) {
      return 2;
    }
    if (b >= 0xE0 && b <= 0xEF) {
      return 3;
    }
    if (b >= 0xF0 && b <= 0xF4) {
      return 4;
    }
    return 0;
  }

  /** The second-byte ranges of RFC 3629 that rule out overlongs, surrogates and > U+10FFFF. */
  private static boolean secondByteFits(byte lead, byte second) {
    int s = second & 0xFF;
    return switch (lead & 0xFF) {
      case 0xE0 -> s >= 0xA0;
      case 0xED -> s <= 0x9F;
      case 0xF0 -> s >= 0x90;
      case 0xF4 -> s <= 0x8F;
      default -> true;
    };
  }
}
