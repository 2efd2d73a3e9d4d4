package dev.berth.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads durations as people write them — {@code 500ms}, {@code 30s}, {@code 15m}, {@code 4h},
 * {@code 7d} — or as ISO-8601 ({@code PT10M}); every command's duration options take the same
 * forms.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    String text = value.strip();
    if (text.startsWith("P") || text.startsWith("p")) {
      try {
        return Duration.parse(text);
      } catch (DateTimeParseException e) {
        throw refused(value);
      }
    }
    Matcher m = FORM.matcher(text);
    if (!m.matches()) {
      throw refused(value);
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      case "d" -> Duration.ofDays(n);
      default -> throw new IllegalStateException("unit " + m.group(2));
    };
  }

  private static CommandLine.TypeConversionException refused(String value) {
    return new CommandLine.TypeConversionException(
        "'"
            + value
            + "' is not a duration; write a number and a unit, e.g. 500ms, 30s, 15m, 4h or 7d, or"
            + " an ISO-8601 duration such as PT10M");
  }
}
