package dev.berth.client;

import java.time.Instant;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * One entry of an agent session's transcript ({@code docs/agents.md}, "Output and transcript").
 *
 * @param type {@code turn-started}, {@code assistant-text}, {@code tool-call}, … ({@code raw} for
 *     an event the server kept without knowing it)
 * @param json the whole entry as the server sent it, with the type's own fields
 */
public record TranscriptEntry(long seq, Instant at, String execution, String type, String json) {

  static TranscriptEntry of(JsonNode entry) {
    return new TranscriptEntry(
        entry.path("seq").asLong(),
        Instant.parse(entry.path("at").asString("1970-01-01T00:00:00Z")),
        entry.path("execution").asString(""),
        entry.path("type").asString(""),
        entry.toString());
  }

  /** A text field of the entry's own ({@code text}, {@code prompt}, {@code name}, …). */
  public Optional<String> field(String name) {
    JsonNode value = Json.mapper().readTree(json).get(name);
    return value == null || value.isNull()
        ? Optional.empty()
        : Optional.of(value.isString() ? value.asString() : value.toString());
  }
}
