package dev.berth.agent.proxy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Anthropic's Messages stream: a {@code content_block_delta} carries a block's text ({@code
 * text_delta}), a tool call's input as JSON text ({@code input_json_delta}) or its thinking ({@code
 * thinking_delta}), the block named by its {@code index}; {@code content_block_stop} ends the
 * block. Every other string (a block's start, a citation, an error) is redacted whole.
 */
record AnthropicEvents(HeldTexts held) implements Events {

  private static final Map<String, String> TEXT_FIELDS =
      Map.of(
          "text_delta", "text", "input_json_delta", "partial_json", "thinking_delta", "thinking");

  @Override
  public List<Outgoing> on(String type, ObjectNode data) {
    List<Outgoing> out = new ArrayList<>();
    switch (data.path("type").asString(type)) {
      case "content_block_delta" -> {
        delta(data, out);
        return out;
      }
      case "content_block_stop" -> out.addAll(held.release(key(data)));
      case "message_delta", "message_stop", "error" -> out.addAll(held.releaseAll());
      default -> {
        // A start, a ping: nothing is held for it.
      }
    }
    out.add(Events.whole(held, data));
    return out;
  }

  @Override
  public List<Outgoing> end() {
    return held.releaseAll();
  }

  private void delta(ObjectNode data, List<Outgoing> out) {
    JsonNode delta = data.path("delta");
    String field = TEXT_FIELDS.get(delta.path("type").asString(""));
    if (field == null || !delta.path(field).isString()) {
      // A signature or a citation: whatever a block held comes before it.
      out.addAll(held.release(key(data)));
      out.add(Events.whole(held, data));
      return;
    }
    String piece = delta.path(field).asString();
    HeldTexts.Setter setter = (event, text) -> ((ObjectNode) event.get("delta")).put(field, text);
    String safe =
        held.redact(key(data), field, piece, "content_block_delta", data.deepCopy(), setter, out);
    out.addAll(Events.delta(piece, safe, data, setter));
  }

  private static String key(ObjectNode data) {
    return data.path("index").asString("");
  }
}
