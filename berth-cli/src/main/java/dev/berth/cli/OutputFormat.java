package dev.berth.cli;

import java.util.Locale;
import picocli.CommandLine;

/**
 * {@code -o table} (aligned columns for people) or {@code -o json} (the server's JSON, for
 * scripts).
 */
enum OutputFormat {
  TABLE,
  JSON;

  /** Reads {@code table} or {@code json}, in any case. */
  static final class Converter implements CommandLine.ITypeConverter<OutputFormat> {
    @Override
    public OutputFormat convert(String value) {
      return switch (value.strip().toLowerCase(Locale.ROOT)) {
        case "table" -> TABLE;
        case "json" -> JSON;
        default ->
            throw new CommandLine.TypeConversionException(
                "'" + value + "' is not an output format; use table or json");
      };
    }
  }
}
