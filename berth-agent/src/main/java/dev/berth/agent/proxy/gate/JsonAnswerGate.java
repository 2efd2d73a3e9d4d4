package dev.berth.agent.proxy.gate;

import dev.berth.agent.proxy.ProviderProfile;
import java.io.IOException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The gate in an answer that is not streamed: the body is held whole, then each held call in it (an
 * Anthropic {@code content} block of type {@code tool_use}, a Responses {@code output} item that
 * calls a tool) is decided in turn, with the markers written as text blocks (message items) before
 * it. Approved: the call stays. Refused: the call and what follows are dropped and the answer ends
 * there ({@code stop_reason: end_turn}; {@code status: completed}). A body that is not a JSON
 * object is withheld (an error body instead: unread, it could carry a call past the gate); one that
 * holds no held call goes on exactly as it came. No keepalive: a JSON body has none to send.
 */
final class JsonAnswerGate implements AnswerGate {

  /** What replaces a success the gate cannot read: an error both CLIs show as such. */
  static final String WITHHELD =
      "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"berth: the"
          + " approval gate withheld an answer it could not read (a success that is neither an"
          + " event stream nor a JSON object)\"}}";

  /** What replaces a JSON answer too large to hold and read. */
  static final String TOO_LARGE =
      "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"berth: the"
          + " approval gate withheld a JSON answer over 4 Mi characters, too large to read\"}}";

  private final Gatekeeper keeper;
  private final ProviderProfile.Api api;
  private final StringBuilder body = new StringBuilder();

  JsonAnswerGate(Gatekeeper keeper, ProviderProfile.Api api) {
    this.keeper = keeper;
    this.api = api;
  }

  /**
   * The most of a JSON answer held (in characters): the proxy runs in a 64 MiB heap with up to 8
   * exchanges at once, and a model's JSON answer is far smaller than this.
   */
  static final int MAX_HELD_CHARS = 4 << 20;

  private boolean overflowed;

  @Override
  public void accept(String text, Downstream out) {
    if (overflowed || body.length() + text.length() > MAX_HELD_CHARS) {
      overflowed = true;
      body.setLength(0);
      return;
    }
    body.append(text);
  }

  @Override
  public void finish(Downstream out) throws IOException, InterruptedException {
    if (overflowed) {
      out.send(TOO_LARGE);
      return;
    }
    String text = body.toString();
    ObjectNode answer = SseEvents.object(text);
    String field = api == ProviderProfile.Api.ANTHROPIC ? "content" : "output";
    if (answer == null && !text.isBlank()) {
      // Not a JSON object, yet a success: perhaps an event stream labelled otherwise. Unread, it
      // could carry a tool call past the gate, so it is withheld (the gate fails closed).
      out.send(WITHHELD);
      return;
    }
    if (answer == null || !(answer.path(field) instanceof ArrayNode items)) {
      out.send(text);
      return;
    }
    ArrayNode gated = SseEvents.JSON.createArrayNode();
    boolean changed = false;
    for (JsonNode item : items) {
      String tool = tool(item);
      if (tool == null) {
        gated.add(item);
        continue;
      }
      changed = true;
      String id = keeper.gate().requestId();
      gated.add(text(id, keeper.awaiting(tool, id), "a"));
      Decision decision = keeper.decide(id, tool, arguments(item));
      gated.add(text(id, keeper.result(tool, id, decision), "r"));
      if (!decision.lets()) {
        if (api == ProviderProfile.Api.ANTHROPIC) {
          answer.put("stop_reason", "end_turn");
        } else {
          answer.put("status", "completed");
        }
        break;
      }
      gated.add(item);
    }
    if (!changed) {
      out.send(text);
      return;
    }
    answer.set(field, gated);
    out.send(SseEvents.JSON.writeValueAsString(answer));
  }

  /** The held tool an item calls, or null when it calls none the policy holds. */
  private @org.jspecify.annotations.Nullable String tool(JsonNode item) {
    String type = item.path("type").asString("");
    if (api == ProviderProfile.Api.ANTHROPIC) {
      String name = item.path("name").asString("");
      return type.equals("tool_use") && keeper.policy().holds(name, "") ? name : null;
    }
    if (!type.equals("function_call")
        && !type.equals("custom_tool_call")
        && !type.equals("local_shell_call")) {
      return null;
    }
    String name = ResponsesGate.tool(item);
    return keeper.policy().holds(name, item.path("namespace").asString("")) ? name : null;
  }

  private String arguments(JsonNode item) {
    return api == ProviderProfile.Api.ANTHROPIC
        ? SseEvents.JSON.writeValueAsString(item.path("input"))
        : ResponsesGate.arguments(item);
  }

  private ObjectNode text(String id, String text, String suffix) {
    ObjectNode node = SseEvents.JSON.createObjectNode();
    if (api == ProviderProfile.Api.ANTHROPIC) {
      return node.put("type", "text").put("text", text);
    }
    node.put("type", "message");
    node.put("id", "msg_berth_" + id.substring(id.lastIndexOf(':') + 1) + "_" + suffix);
    node.put("role", "assistant");
    node.put("status", "completed");
    node.putArray("content")
        .addObject()
        .put("type", "output_text")
        .put("text", text)
        .putArray("annotations");
    return node;
  }

  @Override
  public boolean ended() {
    return false;
  }
}
