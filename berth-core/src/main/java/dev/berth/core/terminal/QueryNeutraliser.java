package dev.berth.core.terminal;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Makes terminal output safe to replay: every sequence in it that asks the terminal for an answer
 * is overwritten with NUL bytes, which terminals ignore, so the byte count (and every cursor) stays
 * the same.
 *
 * <p>Why: a program such as {@code vi} asks the terminal it runs on for its cursor position, its
 * device attributes, its colours or a mode's state, and the terminal answers by typing the answer
 * as input. Replayed later into another terminal (an attach from offset 0, {@code berth logs}), the
 * same question would be answered again, and the answer would go to the shell as if the user had
 * typed it — garbage on its command line, an access to the session, and for an OSC 52 clipboard
 * read the user's clipboard. Live output is never filtered: a program that runs now must get its
 * answers.
 *
 * <p>Neutralised: ENQ; {@code ESC Z}; CSI {@code c} (device attributes), {@code n} (status and
 * cursor position reports), {@code $p} (DECRQM), {@code x} (DECREQTPARM), {@code >q} (XTVERSION),
 * {@code ?m} (XTQMODKEYS), {@code ?u} (keyboard protocol), {@code ?S} (XTSMGRAPHICS), {@code t}
 * with a report parameter (XTWINOPS 11, 13–21); OSC whose body asks with {@code ?} (colours 4,
 * 10–19, clipboard 52); DCS {@code $q} (DECRQSS) and {@code +q} (XTGETTCAP).
 *
 * <p>The input comes in pieces: a sequence cut by a piece's end is held until the next piece (at
 * most {@link #MAX_SEQUENCE} bytes; a longer one is passed on as it is, no query is that long), and
 * {@link #finish} releases what is held. Not thread-safe: one per stream.
 */
public final class QueryNeutraliser {

  /** The longest sequence held across pieces; queries are far shorter. */
  public static final int MAX_SEQUENCE = 256;

  private static final byte ESC = 0x1b;
  private static final byte BEL = 0x07;
  private static final byte ENQ = 0x05;
  private static final java.nio.charset.Charset US_ASCII =
      java.nio.charset.StandardCharsets.US_ASCII;

  private byte[] held = new byte[0];

  /**
   * The bytes of {@code piece} (after any held from the previous piece) with the queries
   * neutralised, less a trailing sequence that is not complete yet.
   */
  public byte[] filter(byte[] piece) {
    byte[] data = concat(held, piece);
    int ground = 0;
    int i = 0;
    while (i < data.length) {
      byte b = data[i];
      if (b == ENQ) {
        data[i] = 0;
        i++;
        ground = i;
        continue;
      }
      if (b != ESC) {
        i++;
        ground = i;
        continue;
      }
      int end = sequenceEnd(data, i);
      if (end < 0) {
        // Cut by the end of the piece: hold it, unless it is already too long to be a query.
        if (data.length - i <= MAX_SEQUENCE) {
          break;
        }
        i++;
        ground = i;
        continue;
      }
      if (isQuery(data, i, end)) {
        Arrays.fill(data, i, end, (byte) 0);
      }
      i = end;
      ground = i;
    }
    held = Arrays.copyOfRange(data, ground, data.length);
    return Arrays.copyOf(data, ground);
  }

  /** What is held, unchanged: the stream ends, or what follows is live. */
  public byte[] finish() {
    byte[] rest = held;
    held = new byte[0];
    return rest;
  }

  /**
   * The index just past the escape sequence starting at {@code start}, or -1 when the data ends
   * first. A sequence longer than {@link #MAX_SEQUENCE} ends where that limit is reached.
   */
  private static int sequenceEnd(byte[] data, int start) {
    if (start + 1 >= data.length) {
      return -1;
    }
    byte kind = data[start + 1];
    int limit = Math.min(data.length, start + MAX_SEQUENCE);
    switch (kind) {
      case '[' -> {
        for (int i = start + 2; i < limit; i++) {
          int c = data[i] & 0xff;
          if (c >= 0x40 && c <= 0x7e) {
            return i + 1;
          }
          if (c < 0x20 || c > 0x3f) {
            return i; // not a CSI after all: what came so far is passed on as it is
          }
        }
        return data.length - start >= MAX_SEQUENCE ? limit : -1;
      }
      case ']', 'P' -> {
        for (int i = start + 2; i < limit; i++) {
          if (data[i] == BEL && kind == ']') {
            return i + 1;
          }
          if (data[i] == ESC) {
            if (i + 1 >= data.length) {
              return -1;
            }
            return data[i + 1] == '\\' ? i + 2 : i;
          }
        }
        return data.length - start >= MAX_SEQUENCE ? limit : -1;
      }
      default -> {
        return start + 2;
      }
    }
  }

  private static boolean isQuery(byte[] data, int start, int end) {
    if (end - start < 2 || end - start >= MAX_SEQUENCE) {
      return false;
    }
    byte kind = data[start + 1];
    return switch (kind) {
      case 'Z' -> end - start == 2;
      case '[' -> isCsiQuery(new String(data, start + 2, end - start - 2, US_ASCII));
      case ']' -> isOscQuery(new String(data, start + 2, end - start - 2, US_ASCII));
      case 'P' -> isDcsQuery(new String(data, start + 2, end - start - 2, US_ASCII));
      default -> false;
    };
  }

  /** {@code body} is the CSI's parameters, intermediates and final byte. */
  private static boolean isCsiQuery(String body) {
    if (body.isEmpty()) {
      return false;
    }
    char last = body.charAt(body.length() - 1);
    String params = body.substring(0, body.length() - 1);
    return switch (last) {
      case 'c', 'n', 'x' -> true;
      case 'p' -> params.endsWith("$");
      case 'q' -> params.startsWith(">");
      case 'm', 'u', 'S' -> params.startsWith("?");
      case 't' -> isWindowReport(params);
      default -> false;
    };
  }

  private static boolean isWindowReport(String params) {
    String first = params.split(";", -1)[0];
    return switch (first) {
      case "11", "13", "14", "15", "16", "18", "19", "20", "21" -> true;
      default -> false;
    };
  }

  /** {@code body} runs from the OSC number to the terminator. */
  private static boolean isOscQuery(String body) {
    String text = body.endsWith("\u0007") ? body.substring(0, body.length() - 1) : body;
    if (text.endsWith("\u001b\\")) {
      text = text.substring(0, text.length() - 2);
    }
    for (String part : text.split(";", -1)) {
      if (part.equals("?")) {
        return true;
      }
    }
    return false;
  }

  private static boolean isDcsQuery(String body) {
    return body.startsWith("$q") || body.startsWith("+q");
  }

  private static byte[] concat(byte[] a, byte[] b) {
    if (a.length == 0) {
      return b.clone();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(a.length + b.length);
    out.writeBytes(a);
    out.writeBytes(b);
    return out.toByteArray();
  }
}
