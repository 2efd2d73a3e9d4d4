package dev.berth.agent.proxy.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.proxy.ProviderProfile;
import dev.berth.core.approval.ApprovalPolicy;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The gate rewriting answers of both APIs, asking a gateway on loopback: a held call is not sent
 * until it is decided, keepalives go out meanwhile, an approved call follows unchanged after the
 * markers (later indexes shifted), a refused one ends the answer cleanly; however the upstream's
 * text is cut into chunks.
 */
class AnswerGateStreamsTest {

  private static final String KEY = "k-1";

  private FakeGateway gateway;

  @BeforeEach
  void start() throws Exception {
    gateway = FakeGateway.start(KEY);
  }

  @AfterEach
  void stop() {
    gateway.close();
  }

  private Gatekeeper keeper(ApprovalPolicy policy) {
    GatewayToolGate gate =
        new GatewayToolGate(
            new GateSettings(policy, gateway.url(), KEY, Duration.ofSeconds(30)),
            "s".repeat(32),
            HttpClient.newHttpClient(),
            InstantSource.system(),
            Duration.ofMillis(20));
    return new Gatekeeper(new GatePolicy(policy), gate, List.of(), Duration.ofMillis(50));
  }

  static String sse(String type, String data) {
    return "event: " + type + "\ndata: " + data + "\n\n";
  }

  static final List<String> ANTHROPIC =
      List.of(
          sse(
              "message_start",
              "{\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]}}"),
          sse(
              "content_block_start",
              "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"),
          sse(
              "content_block_delta",
              "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me run it.\"}}"),
          sse("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"),
          sse(
              "content_block_start",
              "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":{}}}"),
          sse(
              "content_block_delta",
              "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\":\\\"echo \"}}"),
          sse(
              "content_block_delta",
              "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"hit\\\"}\"}}"),
          sse("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}"),
          sse(
              "message_delta",
              "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}"),
          sse("message_stop", "{\"type\":\"message_stop\"}"));

  static final List<String> RESPONSES =
      List.of(
          sse(
              "response.created",
              "{\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"status\":\"in_progress\",\"output\":[]}}"),
          sse(
              "response.output_item.added",
              "{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"msg_1\",\"role\":\"assistant\",\"content\":[]}}"),
          sse(
              "response.output_text.delta",
              "{\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Let me run it.\"}"),
          sse(
              "response.output_item.done",
              "{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"msg_1\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"Let me run it.\"}]}}"),
          sse(
              "response.output_item.added",
              "{\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"exec_command\",\"arguments\":\"\"}}"),
          sse(
              "response.function_call_arguments.delta",
              "{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":1,\"delta\":\"{\\\"cmd\\\":\\\"echo hit\\\"}\"}"),
          sse(
              "response.output_item.done",
              "{\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"exec_command\",\"arguments\":\"{\\\"cmd\\\":\\\"echo hit\\\"}\"}}"),
          sse(
              "response.completed",
              "{\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"status\":\"completed\",\"output\":[{\"type\":\"message\",\"id\":\"msg_1\"},{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"exec_command\",\"arguments\":\"{\\\"cmd\\\":\\\"echo hit\\\"}\"}]}}"));

  /** What the gate sent, in order, piece by piece. */
  private static final class Collected implements AnswerGate.Downstream {
    final List<String> pieces = new ArrayList<>();

    @Override
    public synchronized void send(String text) {
      pieces.add(text);
    }

    synchronized String text() {
      return String.join("", pieces);
    }

    /** The events sent, keepalives left out. */
    List<SseEvents.Piece.Event> events() {
      List<SseEvents.Piece.Event> out = new ArrayList<>();
      for (SseEvents.Piece piece : new SseEvents().accept(text())) {
        SseEvents.Piece.Event event = (SseEvents.Piece.Event) piece;
        if (!event.type().equals("ping") && !event.type().equals("keepalive")) {
          out.add(event);
        }
      }
      return out;
    }

    long keepalives() {
      return new SseEvents()
          .accept(text()).stream()
              .filter(
                  p ->
                      p instanceof SseEvents.Piece.Event e
                          && (e.type().equals("ping") || e.type().equals("keepalive")))
              .count();
    }
  }

  /** Runs the answer through the gate on a thread of its own, in chunks of {@code size}. */
  private static CompletableFuture<Void> run(
      AnswerGate gate, List<String> answer, int size, Collected out) {
    String text = String.join("", answer);
    return CompletableFuture.runAsync(
        () -> {
          try {
            for (int i = 0; i < text.length() && !gate.ended(); i += size) {
              gate.accept(text.substring(i, Math.min(text.length(), i + size)), out);
            }
            if (!gate.ended()) {
              gate.finish(out);
            }
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static ObjectNode data(SseEvents.Piece.Event event) {
    return java.util.Objects.requireNonNull(event.data());
  }

  @Test
  void anAnthropicToolCallIsHeldWithKeepalivesUntilApprovedThenFollowsUnchangedAfterTheMarkers()
      throws Exception {
    Collected out = new Collected();
    CompletableFuture<Void> done =
        run(
            keeper(ApprovalPolicy.ALL).forAnswer(ProviderProfile.Api.ANTHROPIC, true),
            ANTHROPIC,
            1 << 16,
            out);

    await().until(() -> gateway.requests().size() == 1);
    await().until(() -> out.keepalives() >= 2);
    String id = gateway.requests().getFirst().id();
    assertThat(out.text())
        .contains("[berth: awaiting approval — Bash · " + id + "]\\n")
        .doesNotContain("tool_use")
        .doesNotContain("echo ");
    assertThat(done).isNotDone();
    assertThat(gateway.requests().getFirst().arguments().path("command").asString())
        .isEqualTo("echo hit");

    gateway.decide(id, "APPROVED", "");
    done.get();

    List<SseEvents.Piece.Event> events = out.events();
    assertThat(events).hasSize(ANTHROPIC.size() + 6);
    List<SseEvents.Piece.Event> upstream = ANTHROPIC.stream().map(SseEvents::parse).toList();
    // Before the call, exactly as it came; then two marker blocks (1, 2); then the call as index 3.
    assertThat(events.subList(0, 4))
        .extracting(SseEvents.Piece.Event::raw)
        .containsExactlyElementsOf(ANTHROPIC.subList(0, 4));
    assertThat(texts(events.subList(4, 10)))
        .containsExactly(
            // The text before it did not end its line: the marker starts one of its own.
            "\n[berth: awaiting approval — Bash · " + id + "]\n",
            "[berth: approved — Bash · " + id + "]\n");
    assertThat(events.subList(4, 10))
        .extracting(e -> data(e).path("index").asInt())
        .containsExactly(1, 1, 1, 2, 2, 2);
    for (int i = 4; i < ANTHROPIC.size(); i++) {
      ObjectNode expected = data(upstream.get(i)).deepCopy();
      if (expected.has("index")) {
        expected.put("index", expected.path("index").asInt() + 2);
      }
      assertThat(data(events.get(i + 6))).isEqualTo(expected);
    }
  }

  @Test
  void aRejectedAnthropicCallIsDroppedWithTheRestOfTheAnswerWhichEndsAsATurnDoes()
      throws Exception {
    gateway.decidesNext("REJECTED", "not on a Friday");
    Collected out = new Collected();

    run(
            keeper(ApprovalPolicy.ALL).forAnswer(ProviderProfile.Api.ANTHROPIC, true),
            ANTHROPIC,
            7,
            out)
        .get();

    String id = gateway.requests().getFirst().id();
    List<SseEvents.Piece.Event> events = out.events();
    assertThat(out.text()).doesNotContain("tool_use").doesNotContain("toolu_1");
    assertThat(texts(events))
        .containsExactly(
            "Let me run it.",
            "\n[berth: awaiting approval — Bash · " + id + "]\n",
            "[berth: tool call rejected — Bash · " + id + ": not on a Friday]\n");
    assertThat(events.get(events.size() - 2).data().path("delta").path("stop_reason").asString())
        .isEqualTo("end_turn");
    assertThat(events.getLast().type()).isEqualTo("message_stop");
    assertThat(events.stream().filter(e -> e.type().equals("message_stop"))).hasSize(1);
  }

  @Test
  void cutIntoChunksAnywhereTheAnswerComesOutTheSame() throws Exception {
    gateway.decidesNext("APPROVED", "");
    for (int size : new int[] {1, 2, 3, 5, 13, 64}) {
      Collected out = new Collected();
      run(
              keeper(ApprovalPolicy.ALL).forAnswer(ProviderProfile.Api.ANTHROPIC, true),
              ANTHROPIC,
              size,
              out)
          .get();
      assertThat(out.events()).as("chunks of %d", size).hasSize(ANTHROPIC.size() + 6);
      assertThat(texts(out.events())).as("chunks of %d", size).hasSize(3);
      Collected responses = new Collected();
      run(
              keeper(ApprovalPolicy.ALL).forAnswer(ProviderProfile.Api.OPENAI, true),
              RESPONSES,
              size,
              responses)
          .get();
      assertThat(responses.events()).as("chunks of %d", size).hasSize(RESPONSES.size() + 12);
    }
  }

  @Test
  void aResponsesCallIsHeldUntilApprovedAndTheFinalOutputListHoldsTheMarkersWhereTheyWent()
      throws Exception {
    Collected out = new Collected();
    CompletableFuture<Void> done =
        run(
            keeper(ApprovalPolicy.ALL).forAnswer(ProviderProfile.Api.OPENAI, true),
            RESPONSES,
            10,
            out);

    await().until(() -> gateway.requests().size() == 1);
    await().until(() -> out.keepalives() >= 2);
    assertThat(out.text())
        .doesNotContain("function_call")
        .contains("awaiting approval — exec_command");
    String id = gateway.requests().getFirst().id();
    gateway.decide(id, "APPROVED", "");
    done.get();

    List<SseEvents.Piece.Event> events = out.events();
    assertThat(events.subList(0, 4))
        .extracting(SseEvents.Piece.Event::raw)
        .containsExactlyElementsOf(RESPONSES.subList(0, 4));
    // Two marker items at output indexes 1 and 2, six events each; the call is item 3.
    assertThat(events.subList(4, 16))
        .extracting(e -> data(e).path("output_index").asInt())
        .containsOnly(1, 2);
    List<SseEvents.Piece.Event> call = events.subList(16, 19);
    assertThat(call).extracting(e -> data(e).path("output_index").asInt()).containsOnly(3);
    assertThat(call.getLast().data().path("item").path("arguments").asString())
        .isEqualTo("{\"cmd\":\"echo hit\"}");
    JsonNode output = events.getLast().data().path("response").path("output");
    assertThat(output.valueStream().map(i -> i.path("id").asString()).toList())
        .containsExactly(
            "msg_1",
            "msg_berth_" + id.split(":")[1] + "_a",
            "msg_berth_" + id.split(":")[1] + "_r",
            "fc_1");
  }

  @Test
  void aRefusedResponsesCallEndsTheAnswerWithACompletedResponseWithoutIt() throws Exception {
    gateway.decidesNext("EXPIRED", "");
    Collected out = new Collected();

    run(keeper(ApprovalPolicy.ALL).forAnswer(ProviderProfile.Api.OPENAI, true), RESPONSES, 3, out)
        .get();

    String id = gateway.requests().getFirst().id();
    assertThat(out.text()).doesNotContain("function_call").doesNotContain("fc_1");
    List<SseEvents.Piece.Event> events = out.events();
    assertThat(events.getLast().type()).isEqualTo("response.completed");
    JsonNode response = events.getLast().data().path("response");
    assertThat(response.path("status").asString()).isEqualTo("completed");
    assertThat(response.path("id").asString()).isEqualTo("r");
    assertThat(response.path("output").valueStream().map(i -> i.path("type").asString()).toList())
        .containsExactly("message", "message", "message");
    assertThat(out.text()).contains("[berth: tool call expired — exec_command · " + id + "]");
  }

  @Test
  void underPolicyExternalAShellCallPassesUntouchedAndAWebFetchWaits() throws Exception {
    Collected out = new Collected();
    run(
            keeper(ApprovalPolicy.EXTERNAL).forAnswer(ProviderProfile.Api.ANTHROPIC, true),
            ANTHROPIC,
            9,
            out)
        .get();
    assertThat(out.text()).isEqualTo(String.join("", ANTHROPIC));
    assertThat(gateway.requests()).isEmpty();

    gateway.decidesNext("REJECTED", "");
    List<String> fetch =
        ANTHROPIC.stream().map(e -> e.replace("\"Bash\"", "\"WebFetch\"")).toList();
    Collected fetched = new Collected();
    run(
            keeper(ApprovalPolicy.EXTERNAL).forAnswer(ProviderProfile.Api.ANTHROPIC, true),
            fetch,
            9,
            fetched)
        .get();
    assertThat(gateway.requests())
        .singleElement()
        .extracting(FakeGateway.Pending::tool)
        .isEqualTo("WebFetch");
    assertThat(fetched.text()).contains("tool call rejected — WebFetch").doesNotContain("tool_use");
  }

  @Test
  void aJsonAnswerIsHeldWholeAndARefusedCallLeavesItWithTheMarkersAndAnEndTurn() throws Exception {
    gateway.decidesNext("REJECTED", "no");
    String json =
        "{\"id\":\"m\",\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"},"
            + "{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"Bash\",\"input\":{\"command\":\"echo hit\"}}],"
            + "\"stop_reason\":\"tool_use\"}";
    Collected out = new Collected();
    AnswerGate gate = keeper(ApprovalPolicy.ALL).forAnswer(ProviderProfile.Api.ANTHROPIC, false);
    gate.accept(json.substring(0, 40), out);
    assertThat(out.pieces).isEmpty();
    gate.accept(json.substring(40), out);
    gate.finish(out);

    JsonNode answer = SseEvents.JSON.readTree(out.text());
    assertThat(answer.path("stop_reason").asString()).isEqualTo("end_turn");
    assertThat(answer.path("content").valueStream().map(b -> b.path("type").asString()).toList())
        .containsExactly("text", "text", "text");
    assertThat(answer.path("content").get(2).path("text").asString())
        .contains("tool call rejected — Bash")
        .contains(": no]");

    gateway.decidesNext("APPROVED", "");
    Collected approved = new Collected();
    AnswerGate again = keeper(ApprovalPolicy.ALL).forAnswer(ProviderProfile.Api.ANTHROPIC, false);
    again.accept(json, approved);
    again.finish(approved);
    JsonNode released = SseEvents.JSON.readTree(approved.text());
    assertThat(released.path("content").get(3))
        .isEqualTo(SseEvents.JSON.readTree(json).path("content").get(1));
    assertThat(released.path("stop_reason").asString()).isEqualTo("tool_use");
  }

  /** The texts of the answer's text deltas, in order. */
  private static List<String> texts(List<SseEvents.Piece.Event> events) {
    return events.stream()
        .filter(e -> e.type().equals("content_block_delta"))
        .map(e -> data(e).path("delta"))
        .filter(d -> d.path("type").asString("").equals("text_delta"))
        .map(d -> d.path("text").asString())
        .toList();
  }
}
