package dev.berth.protocol.json;

import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The agent's one JSON mapper: strict on input (unknown fields, nulls for primitives, duplicate
 * keys and trailing tokens are errors, because a command that was misread must not run), ISO-8601
 * instants on output.
 */
public final class AgentJson {

  private AgentJson() {}

  public static JsonMapper mapper() {
    return JsonMapper.builder()
        .enable(
            DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
            DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES,
            DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
        .build();
  }
}
