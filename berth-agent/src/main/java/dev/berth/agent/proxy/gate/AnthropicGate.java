package dev.berth.agent.proxy.gate;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The gate in an Anthropic Messages stream. A {@code tool_use} block whose tool the policy holds is
 * kept back from its {@code content_block_start} to its {@code content_block_stop}, with its input
 * ({@code input_json_delta}s) read whole; then the answer gets a text block {@code [berth: awaiting
 * approval …]}, {@code ping}s while the gateway decides, and a text block with the result.
 * Approved: the held events follow unchanged. Refused: the call and the rest of the answer are
 * dropped, and the answer ends as a model's would ({@code message_delta} with {@code stop_reason:
 * end_turn}, {@code message_stop}). Each injected block shifts the {@code index} of every later
 * one.
 *
 * <p>Only {@code tool_use} is held: a {@code server_tool_use} runs at the provider, before the
 * proxy sees it.
 */
final class AnthropicGate implements AnswerGate {

  static final String PING = "event: ping\ndata: {\"type\": \"ping\"}\n\n";

  private final Gatekeeper keeper;
  private final SseEvents events = new SseEvents();
  private @Nullable Held held;
  private int offset;
  private boolean ended;
  private boolean midLine;

  /** A tool call kept back: its block's index upstream, its tool, its input and its events. */
  private static final class Held {
    final int index;
    final String tool;
    final String startInput;
    final StringBuilder input = new StringBuilder();
    final List<SseEvents.Piece.Event> events = new ArrayList<>();

    Held(int index, String tool, String startInput) {
      this.index = index;
      this.tool = tool;
      this.startInput = startInput;
    }
  }

  AnthropicGate(Gatekeeper keeper) {
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
            refuse(call, out);
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
      call.events.add(event);
      if (data != null && data.path("index").asInt(-1) == call.index) {
        JsonNode delta = data.path("delta");
        if (delta.path("type").asString("").equals("input_json_delta")) {
          call.input.append(delta.path("partial_json").asString(""));
        } else if (event.type().equals("content_block_stop")) {
          held = null;
          decide(call, out);
        }
      }
      return;
    }
    if (data == null) {
      out.send(event.raw());
      return;
    }
    JsonNode block = data.path("content_block");
    if (event.type().equals("content_block_start")
        && block.path("type").asString("").equals("tool_use")
        && keeper.policy().holds(block.path("name").asString(""), "")) {
      JsonNode input = block.path("input");
      String startInput =
          input.isObject() && !input.isEmpty() ? SseEvents.JSON.writeValueAsString(input) : "";
      Held fresh = new Held(data.path("index").asInt(), block.path("name").asString(), startInput);
      fresh.events.add(event);
      held = fresh;
      return;
    }
    JsonNode delta = data.path("delta");
    if (delta.path("type").asString("").equals("text_delta")
        && !delta.path("text").asString("").isEmpty()) {
      midLine = !delta.path("text").asString("").endsWith("\n");
    }
    out.send(shifted(event));
  }

  /** A marker starts a line of its own, also after text that did not end one. */
  private String line(String marker) {
    String text = midLine ? "\n" + marker : marker;
    midLine = false;
    return text;
  }

  private void decide(Held call, Downstream out) throws IOException, InterruptedException {
    String input = call.input.isEmpty() ? call.startInput : call.input.toString();
    String id = keeper.gate().requestId();
    out.send(textBlock(call.index + offset, line(keeper.awaiting(call.tool, id))));
    offset++;
    Decision decision = keeper.hold(id, call.tool, input.isEmpty() ? "{}" : input, PING, out);
    out.send(textBlock(call.index + offset, keeper.result(call.tool, id, decision)));
    offset++;
    if (decision.lets()) {
      for (SseEvents.Piece.Event event : call.events) {
        out.send(shifted(event));
      }
    } else {
      end(out);
    }
  }

  /** A call too large to read whole is refused without asking: it cannot be shown or bound. */
  private void refuse(Held call, Downstream out) throws IOException {
    String id = keeper.gate().requestId();
    Decision decision =
        Decision.of(
            Decision.Verdict.ERROR,
            "its arguments exceed " + (SseEvents.MAX_EVENT >> 20) + " MiB in one event");
    out.send(textBlock(call.index + offset, line(keeper.result(call.tool, id, decision))));
    end(out);
  }

  private void end(Downstream out) throws IOException {
    ObjectNode delta = SseEvents.JSON.createObjectNode();
    delta.put("type", "message_delta");
    delta.putObject("delta").put("stop_reason", "end_turn").putNull("stop_sequence");
    delta.putObject("usage").put("output_tokens", 0);
    out.send(SseEvents.event("message_delta", delta));
    out.send(
        SseEvents.event(
            "message_stop", SseEvents.JSON.createObjectNode().put("type", "message_stop")));
    ended = true;
  }

  @Override
  public void finish(Downstream out) throws IOException {
    String rest = events.rest();
    if (!ended && held == null && !rest.isEmpty()) {
      out.send(rest);
    }
    // A call the answer never finished is dropped: undecided, it does not reach the client.
    held = null;
  }

  @Override
  public boolean ended() {
    return ended;
  }

  private String shifted(SseEvents.Piece.Event event) {
    ObjectNode data = event.data();
    if (offset == 0 || data == null || !data.path("index").isIntegralNumber()) {
      return event.raw();
    }
    ObjectNode copy = data.deepCopy();
    copy.put("index", data.path("index").asInt() + offset);
    return SseEvents.event(event.type(), copy);
  }

  static String textBlock(int index, String text) {
    ObjectNode start = SseEvents.JSON.createObjectNode();
    start.put("type", "content_block_start");
    start.put("index", index);
    start.putObject("content_block").put("type", "text").put("text", "");
    ObjectNode delta = SseEvents.JSON.createObjectNode();
    delta.put("type", "content_block_delta");
    delta.put("index", index);
    delta.putObject("delta").put("type", "text_delta").put("text", text);
    ObjectNode stop = SseEvents.JSON.createObjectNode();
    stop.put("type", "content_block_stop");
    stop.put("index", index);
    return SseEvents.event("content_block_start", start)
        + SseEvents.event("content_block_delta", delta)
        + SseEvents.event("content_block_stop", stop);
  }
}
