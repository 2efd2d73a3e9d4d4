package dev.berth.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads durations as people write them: {@code 500ms}, {@code 30s}, {@code 15m}, {@code 4h}, {@code
 * 7d}.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  private static final Pattern FORM = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    Matcher m = FORM.matcher(value.strip());
    if (!m.matches()) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration; write a number and a unit, e.g. 30s, 15m, 4h or 7d");
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
}
