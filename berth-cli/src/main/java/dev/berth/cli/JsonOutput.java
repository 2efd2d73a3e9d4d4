package dev.berth.cli;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.CharacterEscapes;
import tools.jackson.core.io.SerializedString;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code -o json}: the server's JSON as it sent it (fields this CLI does not know included),
 * indented, one document per command. Strings keep their meaning, but DEL, C1 controls and the BIDI
 * overrides are written as {@code \}{@code uNNNN} escapes (JSON already escapes C0), so the
 * document is as safe on a terminal as the tables are and any JSON parser reads the same
 * values.
 */
final class JsonOutput {

  private static final JsonMapper MAPPER =
      JsonMapper.builder(JsonFactory.builder().characterEscapes(new SafeEscapes()).build()).build();

  private JsonOutput() {}

  static String render(JsonNode node) {
    return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(node) + "\n";
  }

  private static final class SafeEscapes extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private final int[] ascii;

    SafeEscapes() {
      ascii = standardAsciiEscapesForJSON();
      ascii[0x7f] = ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public @Nullable SerializableString getEscapeSequence(int c) {
      if ((c >= 0x80 && c <= 0x9f)
          || (c >= 0x202a && c <= 0x202e)
          || (c >= 0x2066 && c <= 0x2069)) {
        return new SerializedString(String.format("\\u%04x", c));
      }
      return null;
    }
  }
}
