package dev.berth.protocol.execution;

import dev.berth.core.agent.ExecutionReport;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionState;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The {@code Execution} object of the agent protocol, which the public API answers unchanged:
 * written by the agent and read back by the control plane from this one definition, so the two
 * cannot drift apart. Absent values are left out.
 */
public final class ExecutionWire {

  private ExecutionWire() {}

  public static Map<String, Object> write(ExecutionReport report) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", report.id().value());
    body.put("command", report.command());
    body.put("state", report.state().name());
    report.exitCode().ifPresent(code -> body.put("exitCode", code));
    body.put("submittedAt", report.submittedAt().toString());
    report.startedAt().ifPresent(at -> body.put("startedAt", at.toString()));
    report.finishedAt().ifPresent(at -> body.put("finishedAt", at.toString()));
    body.put("timedOut", report.timedOut());
    body.put("output", Map.of("nextOffset", report.outputBytes()));
    return body;
  }

  /**
   * @throws IllegalArgumentException when a member is missing or malformed (a node of another
   *     release), naming it
   */
  public static ExecutionReport read(JsonNode body) {
    return new ExecutionReport(
        new ExecutionId(text(body, "id")),
        text(body, "command"),
        ExecutionState.valueOf(text(body, "state")),
        Optional.ofNullable(body.get("exitCode")).map(JsonNode::asInt),
        Instant.parse(text(body, "submittedAt")),
        instant(body, "startedAt"),
        instant(body, "finishedAt"),
        body.path("timedOut").asBoolean(false),
        body.path("output").path("nextOffset").asLong(0));
  }

  private static String text(JsonNode body, String member) {
    JsonNode value = body.get(member);
    if (value == null || !value.isString()) {
      throw new IllegalArgumentException(
          "an Execution from the agent must have the string member \"" + member + "\": " + body);
    }
    return value.asString();
  }

  private static Optional<Instant> instant(JsonNode body, String member) {
    return Optional.ofNullable(body.get(member)).map(v -> Instant.parse(v.asString()));
  }
}
