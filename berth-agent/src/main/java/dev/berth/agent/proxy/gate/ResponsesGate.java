package dev.berth.agent.proxy.gate;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The gate in an OpenAI Responses stream. An output item that calls a tool ({@code function_call},
 * {@code custom_tool_call}, {@code local_shell_call}) the policy holds is kept back from its {@code
 * response.output_item.added} to its {@code response.output_item.done}, whose item has the whole
 * arguments; then the answer gets a message item {@code [berth: awaiting approval …]}, {@code
 * keepalive} events while the gateway decides, and a message item with the result. Approved: the
 * held events follow unchanged. Refused: the call and the rest of the answer are dropped and the
 * answer ends with a {@code response.completed} of the items the client got. Each injected item
 * shifts the {@code output_index} of every later one, and the final event's {@code output} list
 * gets the injected items where they went.
 *
 * <p>The keepalive is an event, not an SSE comment: Codex's {@code stream_idle_timeout_ms} counts
 * events (a comment does not reset it; tried with Codex 0.169), and ignores a type it does not
 * know.
 */
final class ResponsesGate implements AnswerGate {

  static final String KEEPALIVE = "event: keepalive\ndata: {\"type\":\"keepalive\"}\n\n";

  private static final Set<String> CALLS =
      Set.of("function_call", "custom_tool_call", "local_shell_call");
  private static final Set<String> FINAL =
      Set.of("response.completed", "response.incomplete", "response.failed");

  private final Gatekeeper keeper;
  private final SseEvents events = new SseEvents();
  private final List<JsonNode> sent = new ArrayList<>();
  private final Map<Integer, List<ObjectNode>> injected = new TreeMap<>();
  private ObjectNode response = SseEvents.JSON.createObjectNode();
  private @Nullable Held held;
  private int offset;
  private boolean ended;

  /** A call kept back: its item's index upstream, its tool and its events. */
  private record Held(int index, String tool, List<SseEvents.Piece.Event> events) {}

  ResponsesGate(Gatekeeper keeper) {
    this.keeper = keeper;
  }

  @Override
  public void accept(String text, Downstream out) throws IOException, InterruptedException {
    for (SseEvents.Piece piece : events.accept(text)) {
      if (ended) {
        return;
      }
      switch (piece) {
        case SseEvents.Piece.Passed passed -> {
          Held call = held;
          if (call == null) {
            out.send(passed.raw());
          } else {
            held = null;
            String id = keeper.gate().requestId();
            Decision tooLarge =
                Decision.of(
                    Decision.Verdict.ERROR,
                    "its arguments exceed " + (SseEvents.MAX_EVENT >> 20) + " MiB in one event");
            out.send(message(call.index(), id, keeper.result(call.tool(), id, tooLarge), "r"));
            end(out);
          }
        }
        case SseEvents.Piece.Event event -> on(event, out);
      }
    }
  }

  private void on(SseEvents.Piece.Event event, Downstream out)
      throws IOException, InterruptedException {
    ObjectNode data = event.data();
    Held call = held;
    if (call != null) {
      call.events().add(event);
      if (data != null
          && event.type().equals("response.output_item.done")
          && data.path("output_index").asInt(-1) == call.index()) {
        held = null;
        decide(call, data.path("item"), out);
      }
      return;
    }
    if (data == null) {
      out.send(event.raw());
      return;
    }
    if (data.path("response").isObject() && !FINAL.contains(event.type())) {
      response = (ObjectNode) data.path("response").deepCopy();
    }
    JsonNode item = data.path("item");
    if (event.type().equals("response.output_item.added")
        && CALLS.contains(item.path("type").asString(""))
        && keeper.policy().holds(tool(item), item.path("namespace").asString(""))) {
      List<SseEvents.Piece.Event> kept = new ArrayList<>();
      kept.add(event);
      held = new Held(data.path("output_index").asInt(), tool(item), kept);
      return;
    }
    if (FINAL.contains(event.type()) && !injected.isEmpty()) {
      out.send(SseEvents.event(event.type(), withInjected(data)));
      return;
    }
    if (event.type().equals("response.output_item.done")) {
      sent.add(item);
    }
    out.send(shifted(event));
  }

  private void decide(Held call, JsonNode item, Downstream out)
      throws IOException, InterruptedException {
    String id = keeper.gate().requestId();
    out.send(message(call.index(), id, keeper.awaiting(call.tool(), id), "a"));
    Decision decision = keeper.hold(id, call.tool(), arguments(item), KEEPALIVE, out);
    out.send(message(call.index(), id, keeper.result(call.tool(), id, decision), "r"));
    if (decision.lets()) {
      for (SseEvents.Piece.Event event : call.events()) {
        if (event.type().equals("response.output_item.done") && event.data() != null) {
          sent.add(event.data().path("item"));
        }
        out.send(shifted(event));
      }
    } else {
      end(out);
    }
  }

  /** The answer ends here: a completed response of what the client got. */
  private void end(Downstream out) throws IOException {
    ObjectNode completed = SseEvents.JSON.createObjectNode();
    completed.put("type", "response.completed");
    ObjectNode done = response.deepCopy();
    done.put("status", "completed");
    ArrayNode output = done.putArray("output");
    sent.forEach(output::add);
    completed.set("response", done);
    out.send(SseEvents.event("response.completed", completed));
    ended = true;
  }

  /**
   * A message item of the proxy's own at upstream index {@code index} (before the call there),
   * shifting every later item.
   */
  private String message(int index, String id, String text, String suffix) {
    int at = index + offset;
    offset++;
    String itemId = "msg_berth_" + id.substring(id.lastIndexOf(':') + 1) + "_" + suffix;
    ObjectNode part = SseEvents.JSON.createObjectNode();
    part.put("type", "output_text");
    part.put("text", text);
    part.putArray("annotations");
    ObjectNode item = SseEvents.JSON.createObjectNode();
    item.put("type", "message");
    item.put("id", itemId);
    item.put("role", "assistant");
    item.put("status", "completed");
    item.putArray("content").add(part);
    injected.computeIfAbsent(index, k -> new ArrayList<>()).add(item);
    sent.add(item);
    ObjectNode opening = item.deepCopy();
    opening.put("status", "in_progress");
    opening.putArray("content");
    ObjectNode emptyPart = part.deepCopy().put("text", "");
    StringBuilder out = new StringBuilder();
    out.append(itemEvent("response.output_item.added", at, opening));
    out.append(
        SseEvents.event(
            "response.content_part.added",
            partEvent("response.content_part.added", itemId, at).set("part", emptyPart)));
    out.append(
        SseEvents.event(
            "response.output_text.delta",
            partEvent("response.output_text.delta", itemId, at).put("delta", text)));
    out.append(
        SseEvents.event(
            "response.output_text.done",
            partEvent("response.output_text.done", itemId, at).put("text", text)));
    out.append(
        SseEvents.event(
            "response.content_part.done",
            partEvent("response.content_part.done", itemId, at).set("part", part.deepCopy())));
    out.append(itemEvent("response.output_item.done", at, item));
    return out.toString();
  }

  private static String itemEvent(String type, int at, ObjectNode item) {
    ObjectNode event = SseEvents.JSON.createObjectNode();
    event.put("type", type);
    event.put("output_index", at);
    event.set("item", item.deepCopy());
    return SseEvents.event(type, event);
  }

  private static ObjectNode partEvent(String type, String itemId, int at) {
    ObjectNode event = SseEvents.JSON.createObjectNode();
    event.put("type", type);
    event.put("item_id", itemId);
    event.put("output_index", at);
    event.put("content_index", 0);
    return event;
  }

  /** The final event with the injected items in its output list, where they went. */
  private ObjectNode withInjected(ObjectNode data) {
    ObjectNode copy = data.deepCopy();
    JsonNode output = copy.path("response").path("output");
    if (!(copy.path("response") instanceof ObjectNode finalResponse) || !output.isArray()) {
      return copy;
    }
    ArrayNode fixed = finalResponse.putArray("output");
    for (int j = 0; j < output.size(); j++) {
      injected.getOrDefault(j, List.of()).forEach(fixed::add);
      fixed.add(output.get(j));
    }
    injected.forEach(
        (j, items) -> {
          if (j >= output.size()) {
            items.forEach(fixed::add);
          }
        });
    return copy;
  }

  private String shifted(SseEvents.Piece.Event event) {
    ObjectNode data = event.data();
    if (offset == 0 || data == null || !data.path("output_index").isIntegralNumber()) {
      return event.raw();
    }
    ObjectNode copy = data.deepCopy();
    copy.put("output_index", data.path("output_index").asInt() + offset);
    return SseEvents.event(event.type(), copy);
  }

  @Override
  public void finish(Downstream out) throws IOException {
    String rest = events.rest();
    if (!ended && held == null && !rest.isEmpty()) {
      out.send(rest);
    }
    held = null;
  }

  @Override
  public boolean ended() {
    return ended;
  }

  /** The name a call is gated and shown under. */
  static String tool(JsonNode item) {
    return item.path("type").asString("").equals("local_shell_call")
        ? "local_shell"
        : item.path("name").asString("");
  }

  /** A call's arguments as the model wrote them. */
  static String arguments(JsonNode item) {
    return switch (item.path("type").asString("")) {
      case "function_call" -> item.path("arguments").asString("{}");
      case "custom_tool_call" -> item.path("input").asString("");
      default -> SseEvents.JSON.writeValueAsString(item.path("action"));
    };
  }
}
