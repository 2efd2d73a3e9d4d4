package dev.berth.agent.proxy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * OpenAI's Responses stream: every {@code response.….delta} with a string {@code delta} ({@code
 * output_text}, {@code refusal}, {@code reasoning_text}, {@code reasoning_summary_text}, {@code
 * function_call_arguments}, {@code custom_tool_call_input}, and those to come) streams a text of
 * its own, named by the event's kind and its item, output, content and summary indices; the
 * matching {@code ….done}, the item's {@code response.output_item.done} or the response's end ends
 * it. The full texts a {@code ….done} or {@code response.completed} repeats are redacted whole.
 */
record ResponsesEvents(HeldTexts held) implements Events {

  private static final Set<String> ENDS =
      Set.of("response.completed", "response.failed", "response.incomplete", "error");

  @Override
  public List<Outgoing> on(String type, ObjectNode data) {
    String kind = data.path("type").asString(type);
    List<Outgoing> out = new ArrayList<>();
    if (kind.endsWith(".delta") && data.path("delta").isString()) {
      String piece = data.path("delta").asString();
      HeldTexts.Setter setter = (event, text) -> event.put("delta", text);
      String key = key(kind.substring(0, kind.length() - ".delta".length()), data);
      String safe = held.redact(key, "delta", piece, kind, data.deepCopy(), setter, out);
      out.addAll(Events.delta(piece, safe, data, setter));
      return out;
    }
    if (kind.endsWith(".done")) {
      out.addAll(held.release(key(kind.substring(0, kind.length() - ".done".length()), data)));
    }
    if (kind.equals("response.output_item.done")) {
      String item = data.path("item").path("id").asString("");
      String index = data.path("output_index").asString("");
      out.addAll(
          held.releaseWhere(
              key -> {
                String[] parts = key.split("\\|", -1);
                return parts[1].equals(item) || parts[2].equals(index);
              }));
    }
    if (ENDS.contains(kind)) {
      out.addAll(held.releaseAll());
    }
    out.add(Events.whole(held, data));
    return out;
  }

  @Override
  public List<Outgoing> end() {
    return held.releaseAll();
  }

  private static String key(String kind, JsonNode data) {
    return String.join(
        "|",
        kind,
        data.path("item_id").asString(""),
        data.path("output_index").asString(""),
        data.path("content_index").asString(""),
        data.path("summary_index").asString(""));
  }
}
