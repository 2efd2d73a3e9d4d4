package dev.berth.agent.agentcli;

import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A conversation's running totals as its CLI last reported them (each when it reports one): kept
 * with the conversation, so that the next turn's own usage is the difference from them, also after
 * the node restarted or the session was restored.
 */
public record RunningTotals(
    OptionalLong inputTokens, OptionalLong outputTokens, OptionalDouble costUsd) {

  /** Nothing reported yet: a new conversation. */
  public static final RunningTotals NONE =
      new RunningTotals(OptionalLong.empty(), OptionalLong.empty(), OptionalDouble.empty());

  public RunningTotals {
    Objects.requireNonNull(inputTokens, "inputTokens");
    Objects.requireNonNull(outputTokens, "outputTokens");
    Objects.requireNonNull(costUsd, "costUsd");
  }

  /** As kept in the conversation's file; a field that is missing or not a number is not known. */
  static RunningTotals read(JsonNode node) {
    return new RunningTotals(
        StreamJson.count(node.path("inputTokens")),
        StreamJson.count(node.path("outputTokens")),
        node.path("costUsd").isNumber()
            ? OptionalDouble.of(node.path("costUsd").asDouble())
            : OptionalDouble.empty());
  }

  void write(ObjectNode node) {
    inputTokens.ifPresent(v -> node.put("inputTokens", v));
    outputTokens.ifPresent(v -> node.put("outputTokens", v));
    costUsd.ifPresent(v -> node.put("costUsd", v));
  }
}
