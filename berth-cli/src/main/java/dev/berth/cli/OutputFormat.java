package dev.berth.cli;

import java.util.Locale;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;

/**
 * {@code -o table} (aligned columns for people), {@code -o wide} (the same with more columns),
 * {@code -o json} or {@code -o yaml} (the server's document, for scripts), as kubectl offers them.
 */
enum OutputFormat {
  TABLE,
  WIDE,
  JSON,
  YAML;

  /** Whether this format prints the server's document rather than a table. */
  boolean document() {
    return this == JSON || this == YAML;
  }

  /** The document in this format; only for {@link #document()} formats. */
  String render(JsonNode document) {
    return switch (this) {
      case JSON -> JsonOutput.render(document);
      case YAML -> YamlOutput.render(document);
      case TABLE, WIDE ->
          throw new IllegalStateException("-o " + name().toLowerCase(Locale.ROOT) + " is a table");
    };
  }

  /** Reads {@code table}, {@code wide}, {@code json} or {@code yaml}, in any case. */
  static final class Converter implements CommandLine.ITypeConverter<OutputFormat> {
    @Override
    public OutputFormat convert(String value) {
      return switch (value.strip().toLowerCase(Locale.ROOT)) {
        case "table" -> TABLE;
        case "wide" -> WIDE;
        case "json" -> JSON;
        case "yaml" -> YAML;
        default ->
            throw new CommandLine.TypeConversionException(
                "'" + value + "' is not an output format; use table, wide, json or yaml");
      };
    }
  }
}
