package dev.berth.agent.agentcli;

import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Reading a CLI's JSON lines, the same way for every projector. */
final class StreamJson {

  /** How much of a tool's input or of a thought the transcript keeps. */
  static final int SUMMARY = 200;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private StreamJson() {}

  /** A token count, when the CLI gave one. */
  static OptionalLong count(JsonNode node) {
    return node.isIntegralNumber() ? OptionalLong.of(node.asLong()) : OptionalLong.empty();
  }

  /** A small whole number (an attempt, an HTTP status), when the CLI gave one. */
  static OptionalInt integer(JsonNode node) {
    return node.isIntegralNumber() && node.canConvertToInt()
        ? OptionalInt.of(node.asInt())
        : OptionalInt.empty();
  }

  /** The beginning of {@code text}, at most {@link #SUMMARY} characters and an ellipsis. */
  static String summary(String text) {
    return text.length() <= SUMMARY ? text : text.substring(0, SUMMARY) + "…";
  }

  /** The line as a JSON object, or null when it is not one (it then passes through as text). */
  static @Nullable JsonNode parse(String line) {
    String trimmed = line.strip();
    if (!trimmed.startsWith("{")) {
      return null;
    }
    try {
      JsonNode node = JSON.readTree(trimmed);
      return node.isObject() ? node : null;
    } catch (JacksonException notJson) {
      return null;
    }
  }
}
