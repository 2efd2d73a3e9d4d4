package dev.berth.cli;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A size on the command line: a whole number of bytes, or one with a binary suffix ({@code K},
 * {@code M}, {@code G}, {@code T}, optionally followed by {@code i} and {@code B}: {@code 512M},
 * {@code 10GiB}). Binary because the disk and memory it sizes are counted in pages and blocks.
 */
final class ByteSize {
  private static final Pattern SIZE =
      Pattern.compile("(\\d{1,15})\\s*(?:([KMGT])(?:I?B)?|B)?", Pattern.CASE_INSENSITIVE);

  private ByteSize() {}

  /**
   * @param option the option being parsed, for the error
   * @throws IllegalArgumentException naming the option and the value when it is not a size
   */
  static long parse(String option, String value) {
    Matcher m = SIZE.matcher(value.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          option + " must be a size such as 512M, 10G or 1T (binary units), was \"" + value + "\"");
    }
    long number = Long.parseLong(m.group(1));
    int shift =
        m.group(2) == null
            ? 0
            : switch (m.group(2).toUpperCase(Locale.ROOT)) {
              case "K" -> 10;
              case "M" -> 20;
              case "G" -> 30;
              default -> 40;
            };
    if (number > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException(
          option
              + " is too large: \""
              + value
              + "\" (at most "
              + (Long.MAX_VALUE >> shift)
              + Objects.toString(m.group(2), "")
              + ")");
    }
    return number << shift;
  }
}
