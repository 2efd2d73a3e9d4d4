package dev.berth.cli;

/**
 * A held tool call's arguments as one line of a table: what an approver reads before deciding, so
 * it must show what would run and not what the text makes it look like. Control and format
 * characters (line breaks, ESC, the bidirectional overrides, zero-width ones) are written as
 * escapes, as the web UI's approval card writes them ({@code \n}, {@code \t}, {@code \r}, else
 * <code>&#92;u{202e}</code>); a long one is cut, with an ellipsis and the size of the whole.
 */
final class ArgumentsPreview {

  /** The longest preview of {@code -o table}. */
  static final int TABLE = 40;

  /** The longest preview of {@code -o wide}. */
  static final int WIDE = 120;

  private ArgumentsPreview() {}

  /**
   * {@code arguments} escaped on one line, at most {@code most} code points before the ellipsis;
   * {@code -} when there are none.
   */
  static String of(String arguments, int most) {
    if (arguments.isEmpty()) {
      return "-";
    }
    StringBuilder shown = new StringBuilder();
    int width = 0;
    int[] codePoints = arguments.codePoints().toArray();
    for (int i = 0; i < codePoints.length; i++) {
      String piece = escape(codePoints[i]);
      int pieceWidth = piece.codePointCount(0, piece.length());
      if (width + pieceWidth > most) {
        return shown + "… (" + codePoints.length + " characters)";
      }
      shown.append(piece);
      width += pieceWidth;
    }
    return shown.toString();
  }

  private static String escape(int c) {
    return switch (c) {
      case '\n' -> "\\n";
      case '\t' -> "\\t";
      case '\r' -> "\\r";
      default -> {
        int type = Character.getType(c);
        yield type == Character.CONTROL || type == Character.FORMAT
            ? String.format("\\u{%04x}", c)
            : Character.toString(c);
      }
    };
  }
}
