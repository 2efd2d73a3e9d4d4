package dev.berth.client;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.OptBoolean;
import dev.berth.core.execution.ExecutionId;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A command run to completion in a session ({@code docs/agent-protocol.md}, {@code Execution}).
 *
 * @param state {@code QUEUED | RUNNING | SUCCEEDED | FAILED | CANCELLED | LOST}, kept as text
 * @param exitCode the command's exit status, once it exited
 * @param timedOut true when the server cancelled it at its timeout
 * @param json the object as the server sent it
 */
public record Execution(
    ExecutionId id,
    String command,
    String state,
    OptionalInt exitCode,
    Optional<Instant> submittedAt,
    Optional<Instant> startedAt,
    Optional<Instant> finishedAt,
    boolean timedOut,
    Optional<Output> output,
    @JacksonInject(value = Json.RAW, useInput = OptBoolean.FALSE) JsonNode json) {

  private static final Set<String> FINISHED = Set.of("SUCCEEDED", "FAILED", "CANCELLED", "LOST");

  public Execution {
    Objects.requireNonNull(id, "execution id is required");
    command = Objects.requireNonNullElse(command, "");
    state = Objects.requireNonNullElse(state, "");
  }

  /** Whether the execution reached a final state and will not change again. */
  public boolean isFinished() {
    return FINISHED.contains(state);
  }

  /** The end of its output log, as far as the server knew when it answered. */
  public OptionalLong outputEnd() {
    return output.map(Output::nextOffset).orElse(OptionalLong.empty());
  }

  /** {@code output}: where the execution's own log ends. */
  public record Output(OptionalLong nextOffset) {}
}
