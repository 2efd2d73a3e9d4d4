package dev.berth.cli;

import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * {@code -o yaml}: the server's JSON as a YAML document, with the same care as {@link JsonOutput}
 * for a terminal: every character outside printable ASCII is written as an escape in a
 * double-quoted string ({@code "\e[2J"}, {@code "\u202e"}), so that no value can move the cursor,
 * clear the screen or reorder a line, and any YAML parser reads the same values. Names with accents
 * are escaped too: the price of never letting a control or BIDI character through.
 */
final class YamlOutput {

  private static final YAMLMapper MAPPER =
      new YAMLMapper(
          YAMLFactory.builder()
              .dumperOptions(
                  DumpSettings.builder()
                      .setUseUnicodeEncoding(false)
                      .setDefaultFlowStyle(FlowStyle.BLOCK)
                      .setIndent(2)
                      .build())
              .build());

  private YamlOutput() {}

  static String render(JsonNode node) {
    return MAPPER.writeValueAsString(node);
  }
}
