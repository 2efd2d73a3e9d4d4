package dev.berth.cli;

/**
 * Makes server text safe to print outside the terminal stream (R-5.11 (b)): a session name, a
 * condition message, an error. C0 controls (except {@code \n} and {@code \t} in running text), ESC,
 * {@code \r}, DEL and C1 controls become {@code \xNN}, and the BIDI overrides and isolates
 * (U+202A–202E, U+2066–2069) become {@code \}{@code u202e}-style escapes, so that nothing a
 * workload names itself can move the cursor, retitle the window, write the clipboard or reorder
 * what the user reads. The raw output of {@code logs}, {@code exec} and {@code attach} is the other
 * channel and passes through untouched.
 */
final class Escape {

  private Escape() {}

  /** Running text: keeps line feeds and tabs. */
  static String text(String value) {
    return escape(value, true);
  }

  /** A table cell: one line, so line feeds and tabs are escaped too. */
  static String cell(String value) {
    return escape(value, false);
  }

  private static String escape(String value, boolean keepLayout) {
    if (value == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(value.length());
    value
        .codePoints()
        .forEach(
            c -> {
              if (keepLayout && (c == '\n' || c == '\t')) {
                out.append((char) c);
              } else if (c == '\n') {
                out.append("\\n");
              } else if (c == '\t') {
                out.append("\\t");
              } else if (c == '\r') {
                out.append("\\r");
              } else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
                out.append(String.format("\\x%02x", c));
              } else if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
                out.append(String.format("\\u%04x", c));
              } else {
                out.appendCodePoint(c);
              }
            });
    return out.toString();
  }
}
