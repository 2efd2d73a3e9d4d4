package dev.berth.core.terminal;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
 * <p>It parses as the VT500 model terminals follow (xterm, xterm.js, tmux): C0 controls inside a
 * sequence are executed without ending it, ESC anywhere starts a new one, CAN and SUB abort, and
 * the 8-bit C1 introducers (CSI, OSC, DCS, APC, PM, SOS as UTF-8) count like their ESC forms.
 *
 * <p>Neutralised: ENQ; {@code ESC Z}; CSI {@code c} (device attributes), {@code n} (status and
 * cursor position reports), {@code $p} (DECRQM), {@code x} (DECREQTPARM), {@code >q} (XTVERSION),
 * {@code ?m} (XTQMODKEYS), {@code ?u} and {@code $u} (keyboard protocol, DECRQTSR), {@code ?S}
 * (XTSMGRAPHICS), {@code *y} (DECRQCRA), {@code $w} (DECRQPSR), {@code t} with a report parameter
 * (XTWINOPS 11, 13–21); OSC whose body asks with {@code ?} (colours), OSC 52 (the clipboard) and
 * OSC 1337 (iTerm2's reports); every DCS, APC, PM and SOS string (DECRQSS, XTGETTCAP, kitty's
 * graphics queries); and every sequence longer than {@link #MAX_SEQUENCE} bytes, which no honest
 * output needs to replay.
 *
 * <p>The input comes in pieces: a sequence cut by a piece's end is held until the next piece (at
 * most {@link #MAX_SEQUENCE} bytes; a longer one is blanked as it streams by), and {@link #finish}
 * releases what is held. Not thread-safe: one per stream.
 */
public final class QueryNeutraliser {

  /** The longest sequence held across pieces; queries are far shorter. */
  public static final int MAX_SEQUENCE = 256;

  private static final int ESC = 0x1b;
  private static final int BEL = 0x07;
  private static final int ENQ = 0x05;
  private static final int CAN = 0x18;
  private static final int SUB = 0x1a;

  private enum Kind {
    CSI,
    OSC,
    STRING,
    ESCAPE
  }

  /** What a sequence found in the data is. */
  private record Found(int end, boolean query) {}

  /** Inside an over-long sequence, blanked until it ends: its kind, or null. */
  private @Nullable Kind blanking;

  private byte[] held = new byte[0];

  /**
   * The bytes of {@code piece} (after any held from the previous piece) with the queries
   * neutralised, less a trailing sequence that is not complete yet.
   */
  public byte[] filter(byte[] piece) {
    byte[] data = concat(held, piece);
    int i = 0;
    if (blanking != null) {
      i = blankRest(data, 0);
    }
    int ground = i;
    while (i < data.length) {
      int b = data[i] & 0xff;
      if (b == ENQ) {
        data[i] = 0;
        ground = ++i;
        continue;
      }
      int introducer = introducerLength(data, i);
      if (introducer == 0) {
        ground = ++i;
        continue;
      }
      Found found = parse(data, i);
      if (found == null) {
        if (data.length - i < MAX_SEQUENCE) {
          break; // cut by the end of the piece: held for the next one
        }
        // Too long to be anything honest: blanked, its introducer first, until it ends.
        blanking = kindAt(data, i);
        int body = bodyStart(data, i);
        Arrays.fill(data, i, body, (byte) 0);
        i = blankRest(data, body);
        ground = i;
        continue;
      }
      if (found.query()) {
        Arrays.fill(data, i, found.end(), (byte) 0);
      }
      i = found.end();
      ground = i;
    }
    held = Arrays.copyOfRange(data, ground, data.length);
    return Arrays.copyOf(data, ground);
  }

  /** What is held, unchanged: the stream ends, or what follows is live. */
  public byte[] finish() {
    byte[] rest = held;
    held = new byte[0];
    blanking = null;
    return rest;
  }

  /** Blanks from {@code from} to the end of the over-long sequence, or of the data. */
  private int blankRest(byte[] data, int from) {
    for (int i = from; i < data.length; i++) {
      int c = data[i] & 0xff;
      // blanking is set whenever this runs: filter() calls it inside an over-long sequence only.
      boolean ends =
          switch (Objects.requireNonNull(blanking)) {
            case CSI, ESCAPE -> c >= 0x40 && c <= 0x7e;
            case OSC, STRING -> c == BEL || c == 0x9c || c == '\\';
          };
      data[i] = 0;
      if (ends || c == CAN || c == SUB) {
        blanking = null;
        return i + 1;
      }
    }
    return data.length;
  }

  /** 1 for ESC, 2 for a C1 introducer in UTF-8 (CSI, OSC, DCS, SOS, PM, APC), else 0. */
  private static int introducerLength(byte[] data, int i) {
    int b = data[i] & 0xff;
    if (b == ESC) {
      return 1;
    }
    if (b == 0xc2 && i + 1 < data.length) {
      int c = data[i + 1] & 0xff;
      if (c == 0x9b || c == 0x9d || c == 0x90 || c == 0x98 || c == 0x9e || c == 0x9f) {
        return 2;
      }
    }
    return 0;
  }

  /** Just past the byte that says the kind of the sequence at {@code i}. */
  private static int bodyStart(byte[] data, int i) {
    if ((data[i] & 0xff) == 0xc2) {
      return i + 2;
    }
    int j = i + 1;
    while (j < data.length && isExecuted(data[j] & 0xff)) {
      j++;
    }
    return Math.min(j + 1, data.length);
  }

  /** The kind of sequence that starts at {@code i}, as far as the data tells. */
  private static Kind kindAt(byte[] data, int i) {
    int k = kindByte(data, i);
    return switch (k) {
      case '[' -> Kind.CSI;
      case ']' -> Kind.OSC;
      case 'P', '_', '^', 'X' -> Kind.STRING;
      default -> Kind.ESCAPE;
    };
  }

  /** The byte that says the kind: after ESC (and any C0 controls), or the C1 introducer's. */
  private static int kindByte(byte[] data, int i) {
    if ((data[i] & 0xff) == 0xc2) {
      return switch (data[i + 1] & 0xff) {
        case 0x9b -> '[';
        case 0x9d -> ']';
        case 0x90 -> 'P';
        case 0x98 -> 'X';
        case 0x9e -> '^';
        default -> '_';
      };
    }
    for (int j = i + 1; j < data.length; j++) {
      int c = data[j] & 0xff;
      if (c >= 0x20 || c == ESC || c == CAN || c == SUB) {
        return c;
      }
    }
    return -1;
  }

  /** The sequence starting at {@code start}, or null when the data ends before it does. */
  private static @Nullable Found parse(byte[] data, int start) {
    int i;
    int kind;
    if ((data[start] & 0xff) == 0xc2) {
      kind = kindByte(data, start);
      i = start + 2;
    } else {
      // C0 controls between ESC and what follows are executed; the sequence goes on.
      i = start + 1;
      while (i < data.length && isExecuted(data[i] & 0xff)) {
        i++;
      }
      if (i >= data.length) {
        return null;
      }
      kind = data[i] & 0xff;
      if (kind == ESC) {
        return new Found(i, false); // a new sequence starts here
      }
      if (kind == CAN || kind == SUB) {
        return new Found(i + 1, false);
      }
      i++;
    }
    return switch (kind) {
      case '[' -> csi(data, start, i);
      case ']' -> string(data, start, i, true);
      case 'P', '_', '^', 'X' -> string(data, start, i, false);
      case 'Z' -> new Found(i, true);
      default -> escape(data, i);
    };
  }

  /** ESC, intermediates (0x20–0x2f), then a final byte: never a query. */
  private static @Nullable Found escape(byte[] data, int i) {
    int c = data[i - 1] & 0xff;
    if (c >= 0x30 && c <= 0x7e) {
      return new Found(i, false);
    }
    for (; i < data.length; i++) {
      c = data[i] & 0xff;
      if (c == ESC) {
        return new Found(i, false);
      }
      if (c >= 0x30 && c <= 0x7e) {
        return new Found(i + 1, false);
      }
    }
    return null;
  }

  private static @Nullable Found csi(byte[] data, int start, int i) {
    StringBuilder body = new StringBuilder();
    for (; i < data.length && i - start < MAX_SEQUENCE; i++) {
      int c = data[i] & 0xff;
      if (c == ESC || (c == 0xc2 && introducerLength(data, i) == 2)) {
        return new Found(i, false);
      }
      if (c == CAN || c == SUB) {
        return new Found(i + 1, false);
      }
      if (isExecuted(c)) {
        continue;
      }
      if (c >= 0x40 && c <= 0x7e) {
        return new Found(i + 1, isCsiQuery(body.toString(), (char) c));
      }
      if (c < 0x20 || c > 0x3f) {
        return new Found(i, false); // not a CSI after all: passed on as it is
      }
      body.append((char) c);
    }
    return null;
  }

  private static @Nullable Found string(byte[] data, int start, int i, boolean osc) {
    int bodyStart = i;
    for (; i < data.length && i - start < MAX_SEQUENCE; i++) {
      int c = data[i] & 0xff;
      if (c == BEL && osc) {
        return new Found(i + 1, isOscQuery(data, bodyStart, i));
      }
      if (c == CAN || c == SUB) {
        return new Found(i + 1, true);
      }
      if (c == 0xc2 && i + 1 < data.length && (data[i + 1] & 0xff) == 0x9c) {
        return new Found(i + 2, !osc || isOscQuery(data, bodyStart, i));
      }
      if (c == ESC) {
        if (i + 1 >= data.length) {
          return null;
        }
        if (data[i + 1] == '\\') {
          return new Found(i + 2, !osc || isOscQuery(data, bodyStart, i));
        }
        return new Found(i, !osc); // ESC aborts the string and starts a new sequence
      }
    }
    return null;
  }

  /** C0 controls a terminal executes in the middle of a sequence, which then goes on. */
  private static boolean isExecuted(int c) {
    return c < 0x20 && c != ESC && c != CAN && c != SUB;
  }

  /** {@code params} is what came between CSI and the final byte. */
  private static boolean isCsiQuery(String params, char last) {
    String prefix =
        params.isEmpty() || "?>=<".indexOf(params.charAt(0)) < 0 ? "" : params.substring(0, 1);
    String intermediates = params.replaceAll("[0-9;:?>=<]", "");
    return switch (last) {
      case 'c', 'n', 'x' -> true;
      case 'p', 'w' -> intermediates.contains("$");
      case 'y' -> intermediates.contains("*");
      case 'q' -> prefix.equals(">");
      case 'm', 'S' -> prefix.equals("?");
      case 'u' -> prefix.equals("?") || intermediates.contains("$");
      case 't' -> isWindowReport(numbers(params));
      default -> false;
    };
  }

  private static List<Integer> numbers(String params) {
    List<Integer> numbers = new ArrayList<>();
    for (String part : params.replaceAll("[^0-9;]", "").split(";", -1)) {
      try {
        numbers.add(part.isEmpty() ? 0 : Integer.parseInt(part));
      } catch (NumberFormatException tooLarge) {
        numbers.add(-1);
      }
    }
    return numbers;
  }

  private static boolean isWindowReport(List<Integer> numbers) {
    int first = numbers.isEmpty() ? 0 : numbers.get(0);
    return first == 11 || (first >= 13 && first <= 21);
  }

  private static boolean isOscQuery(byte[] data, int from, int to) {
    String text = new String(data, from, to - from, java.nio.charset.StandardCharsets.ISO_8859_1);
    String number = text.split(";", 2)[0];
    if (number.equals("52") || number.equals("1337")) {
      return true;
    }
    for (String part : text.split(";", -1)) {
      if (part.startsWith("?")) {
        return true;
      }
    }
    return false;
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
