package dev.berth.client;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.OptBoolean;
import dev.berth.core.operation.OperationId;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;

/**
 * The work the server did, or does, to serve one intent of a session: its steps, attempts, deadline
 * and error.
 *
 * @param error kept as JSON: its shape is the server's
 * @param json the object as the server sent it
 */
public record Operation(
    OperationId id,
    Optional<String> sessionId,
    String type,
    String state,
    OptionalLong intentVersion,
    List<Step> steps,
    OptionalInt attempts,
    Optional<Instant> deadline,
    Optional<JsonNode> error,
    Optional<Instant> createdAt,
    Optional<Instant> finishedAt,
    @JacksonInject(value = Json.RAW, useInput = OptBoolean.FALSE) JsonNode json) {

  public Operation {
    Objects.requireNonNull(id, "operation id is required");
    type = Objects.requireNonNullElse(type, "");
    state = Objects.requireNonNullElse(state, "");
    steps = steps == null ? List.of() : List.copyOf(steps);
  }

  /**
   * One of {@code steps[]}: its name and detail, with the times the server gives ({@code at} for a
   * step recorded at one instant, {@code startedAt}/{@code finishedAt} for one with a duration).
   */
  public record Step(
      String name,
      Optional<String> state,
      Optional<Instant> at,
      Optional<Instant> startedAt,
      Optional<Instant> finishedAt,
      Optional<String> detail) {}
}
