package dev.berth.agent.agentcli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import dev.berth.agent.testing.LoopbackHttps;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A fake model provider on loopback, because no real one can be reached from here: it speaks the
 * streaming Anthropic Messages API ({@code POST /v1/messages}) and the streaming OpenAI Responses
 * API ({@code POST /v1/responses}) well enough for the real Claude Code and Codex CLIs, with
 * scripted answers decided by the last user message:
 *
 * <ul>
 *   <li>a tool result: "Done." (the CLI ran the tool and reports back);
 *   <li>text starting {@code say: }: the text after it, verbatim, as the model's answer;
 *   <li>text starting {@code run: }: a tool call of the command after it, as a model steered by a
 *       hostile prompt would make: {@code Bash} (Anthropic), {@code exec_command} (Responses);
 *   <li>text with {@code touch}: a tool call {@code touch marker.txt}: {@code Bash} (Anthropic),
 *       {@code exec_command} (Responses: Codex's shell tool, offered to a model it is given);
 *   <li>text with {@code start a sub-agent} (Responses): Codex's {@code spawn_agent}; the sub-agent
 *       answers {@link #SUB_AGENT_RESULT} after 3 seconds, and a prompt to {@code Report their
 *       results} is answered with what the parent was told of it;
 *   <li>text with {@code echo the token}: an answer that contains the secret of {@link #echoes}, as
 *       an upstream that reflects credentials would, in one delta written as two chunks that split
 *       it; with {@code echo the token in two deltas}, split across two deltas instead;
 *   <li>anything else: "Hello from the fake provider." in three deltas, the last one held until
 *       {@link #release} when the provider was told to {@link #holdAnswers}.
 * </ul>
 *
 * It records every request (method, path, headers with lower-case names, body). HTTPS with a
 * self-signed certificate made by keytool at start, whose PEM is {@link #caCertificate}.
 */
public final class FakeModelProvider implements AutoCloseable {

  /** One request as the provider received it. */
  public record Received(String method, String path, Map<String, String> headers, String body) {}

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The task a sub-agent the script starts is given, and what it answers after 3 seconds. */
  static final String SUB_AGENT_TASK = "SUB-AGENT TASK: count the sheep";

  static final String SUB_AGENT_RESULT = "sub-agent result: 4711 sheep";

  private final HttpServer server;
  private final Path caCertificate;
  private final List<Received> received = new ArrayList<>();
  private volatile String echoed = "";
  private volatile CountDownLatch hold = new CountDownLatch(0);
  private volatile boolean encoded;
  private final java.util.concurrent.atomic.AtomicInteger failures =
      new java.util.concurrent.atomic.AtomicInteger();
  private volatile int failureStatus = 502;

  private FakeModelProvider(HttpServer server, Path caCertificate) {
    this.server = server;
    this.caCertificate = caCertificate;
  }

  /** An HTTPS provider; its certificate is made in {@code directory}. */
  public static FakeModelProvider https(Path directory) throws Exception {
    LoopbackHttps https = LoopbackHttps.create(directory, "fake-provider");
    return started(https.server(), https.caCertificate());
  }

  private static FakeModelProvider started(HttpServer server, Path pem) {
    FakeModelProvider provider = new FakeModelProvider(server, pem);
    server.createContext("/", provider::handle);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.start();
    return provider;
  }

  /** Its base URL, e.g. {@code https://127.0.0.1:40123}. */
  public URI url() {
    String scheme = server instanceof HttpsServer ? "https" : "http";
    return URI.create(scheme + "://127.0.0.1:" + server.getAddress().getPort());
  }

  public Path caCertificate() {
    return caCertificate;
  }

  /** The secret an "echo the token" answer reflects. */
  public void echoes(String secret) {
    this.echoed = secret;
  }

  /** Makes every answer claim a gzip body, which a proxy that redacts must refuse. */
  public void encodesAnswers() {
    encoded = true;
  }

  /**
   * Answers the next {@code count} requests for a model answer with {@code status} and an error
   * body, as an overloaded upstream or a failing gateway does; the CLIs retry them.
   */
  public void failsAnswers(int count, int status) {
    failureStatus = status;
    failures.set(count);
  }

  /** Makes plain answers wait before their last delta until {@link #release}. */
  public void holdAnswers() {
    hold = new CountDownLatch(1);
  }

  public void release() {
    hold.countDown();
  }

  public synchronized List<Received> received() {
    return List.copyOf(received);
  }

  /** The requests for model answers (not token counts or other side requests). */
  public List<Received> answersAsked() {
    return received().stream()
        .filter(
            r ->
                (r.path().startsWith("/v1/messages") && !r.path().contains("count_tokens"))
                    || r.path().startsWith("/v1/responses"))
        .toList();
  }

  @Override
  public void close() {
    release();
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      Map<String, String> headers = new TreeMap<>();
      exchange
          .getRequestHeaders()
          .forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
      String path = exchange.getRequestURI().getPath();
      synchronized (this) {
        received.add(
            new Received(
                exchange.getRequestMethod(), exchange.getRequestURI().toString(), headers, body));
      }
      boolean answer =
          (path.startsWith("/v1/messages") && !path.contains("count_tokens"))
              || path.startsWith("/v1/responses");
      if (answer && failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        fail(exchange);
      } else if (path.startsWith("/v1/messages/count_tokens")) {
        json(exchange, "{\"input_tokens\":10}");
      } else if (path.startsWith("/v1/messages")) {
        anthropic(exchange, body);
      } else if (path.startsWith("/v1/responses")) {
        responses(exchange, body);
      } else {
        exchange.sendResponseHeaders(404, -1);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void anthropic(HttpExchange exchange, String body)
      throws IOException, InterruptedException {
    JsonNode request = JSON.readTree(body);
    JsonNode last = lastMessage(request.path("messages"));
    String text = lastText(last);
    if (!request.path("stream").asBoolean(false)) {
      json(
          exchange,
          "{\"id\":\"msg_side\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fake\","
              + "\"content\":[{\"type\":\"text\",\"text\":"
              + JSON.writeValueAsString(
                  text.contains("echo the token") ? "the token is " + echoed : "ok")
              + "}],\"stop_reason\":\"end_turn\","
              + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}");
      return;
    }
    Events events = Events.open(exchange, encoded);
    events.send(
        "message_start",
        "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_fake\",\"type\":\"message\","
            + "\"role\":\"assistant\",\"model\":\"fake\",\"content\":[],\"stop_reason\":null,"
            + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}");
    if (hasToolResult(last)) {
      textBlock(events, List.of("Done."));
      finish(events, "end_turn");
    } else if (text.startsWith("say: ")) {
      textBlock(events, List.of(text.substring("say: ".length())));
      finish(events, "end_turn");
    } else if (text.startsWith("run: ")) {
      // One tool call per command, named after it: Claude Code may merge a turn's next prompt into
      // the message that carries the last tool result, so "the last message is a result" is not
      // a safe end; a result for this very call anywhere in the conversation is.
      String command = text.substring("run: ".length());
      String id = "toolu_run_" + Integer.toHexString(command.hashCode());
      if (answered(request.path("messages"), id)) {
        textBlock(events, List.of("Done."));
        finish(events, "end_turn");
      } else {
        bash(events, id, command);
      }
    } else if (text.contains("touch")) {
      events.send(
          "content_block_start",
          "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
              + "{\"type\":\"tool_use\",\"id\":\"toolu_fake\",\"name\":\"Bash\",\"input\":{}}}");
      events.send(
          "content_block_delta",
          "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
              + "{\"type\":\"input_json_delta\",\"partial_json\":"
              + JSON.writeValueAsString(
                  "{\"command\":\"touch marker.txt\",\"description\":\"Create the marker\"}")
              + "}}");
      events.send("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
      finish(events, "tool_use");
    } else if (text.contains("echo the token in two deltas")) {
      int half = echoed.length() / 2;
      textBlock(
          events,
          List.of("the token is " + echoed.substring(0, half), echoed.substring(half) + " indeed"));
      finish(events, "end_turn");
    } else if (text.contains("echo the token")) {
      // One delta, written in two flushes that split the token: two chunks on the wire.
      String event =
          "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
              + "\"delta\":{\"type\":\"text_delta\",\"text\":\"the token is "
              + echoed
              + " indeed\"}}\n\n";
      int cut = event.indexOf(echoed) + echoed.length() / 2;
      events.send(
          "content_block_start",
          "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
      events.raw(event.substring(0, cut));
      Thread.sleep(100);
      events.raw(event.substring(cut));
      events.send("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
      finish(events, "end_turn");
    } else {
      events.send(
          "content_block_start",
          "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
      delta(events, "Hello");
      delta(events, " from the fake");
      hold.await(60, TimeUnit.SECONDS);
      delta(events, " provider.");
      events.send("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
      finish(events, "end_turn");
    }
  }

  private static void bash(Events events, String id, String command) throws IOException {
    events.send(
        "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
            + "{\"type\":\"tool_use\",\"id\":\""
            + id
            + "\",\"name\":\"Bash\",\"input\":{}}}");
    String input =
        JSON.writeValueAsString(
            java.util.Map.of("command", command, "description", "Run the given command"));
    events.send(
        "content_block_delta",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
            + "{\"type\":\"input_json_delta\",\"partial_json\":"
            + JSON.writeValueAsString(input)
            + "}}");
    events.send("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
    finish(events, "tool_use");
  }

  private static void textBlock(Events events, List<String> pieces) throws IOException {
    events.send(
        "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
    for (String piece : pieces) {
      delta(events, piece);
    }
    events.send("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
  }

  private static void delta(Events events, String text) throws IOException {
    events.send(
        "content_block_delta",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
            + JSON.writeValueAsString(text)
            + "}}");
  }

  private static void finish(Events events, String reason) throws IOException {
    events.send(
        "message_delta",
        "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\""
            + reason
            + "\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}");
    events.send("message_stop", "{\"type\":\"message_stop\"}");
  }

  private void responses(HttpExchange exchange, String body)
      throws IOException, InterruptedException {
    JsonNode request = JSON.readTree(body);
    String text = "";
    JsonNode last = JSON.createObjectNode();
    for (JsonNode item : request.path("input")) {
      last = item;
      if (item.path("role").asString("").equals("user")) {
        text = textOf(item);
      }
    }
    boolean toolResult = last.path("type").asString("").equals("function_call_output");
    if (!toolResult && text.startsWith("run: ")) {
      responsesToolCall(exchange, text.substring("run: ".length()));
      return;
    }
    if (!toolResult && text.contains("touch")) {
      responsesToolCall(exchange, "touch marker.txt");
      return;
    }
    if (!toolResult && text.contains("start a sub-agent")) {
      responsesToolCall(
          exchange,
          "collaboration",
          "spawn_agent",
          "{\"task_name\":\"helper\",\"message\":\""
              + SUB_AGENT_TASK
              + "\",\"fork_turns\":\"none\"}");
      return;
    }
    boolean subAgent =
        last.path("type").asString("").equals("agent_message")
            && last.toString().contains(SUB_AGENT_TASK);
    if (subAgent) {
      Thread.sleep(3000); // the sub-agent works on after its parent's answer
    }
    String answer =
        subAgent
            ? SUB_AGENT_RESULT
            : text.contains("Report their results")
                ? "The sub-agent reported: "
                    + (body.contains(SUB_AGENT_RESULT) ? SUB_AGENT_RESULT : "nothing")
                    + "."
                : toolResult
                    ? "Done."
                    : text.startsWith("say: ")
                        ? text.substring("say: ".length())
                        : text.contains("echo the token")
                            ? "the token is " + echoed + " indeed"
                            : "Hello from the fake provider.";
    Events events = Events.open(exchange, encoded);
    events.send(
        "response.created",
        "{\"type\":\"response.created\",\"response\":{\"id\":\"resp_fake\",\"status\":\"in_progress\"}}");
    events.send(
        "response.output_item.added",
        "{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":"
            + "{\"type\":\"message\",\"id\":\"msg_fake\",\"role\":\"assistant\",\"status\":\"in_progress\",\"content\":[]}}");
    events.send(
        "response.output_text.delta",
        "{\"type\":\"response.output_text.delta\",\"item_id\":\"msg_fake\","
            + "\"output_index\":0,\"content_index\":0,\"delta\":"
            + JSON.writeValueAsString(answer)
            + "}");
    hold.await(60, TimeUnit.SECONDS);
    events.send(
        "response.output_item.done",
        "{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":"
            + "{\"type\":\"message\",\"id\":\"msg_fake\",\"role\":\"assistant\",\"status\":\"completed\",\"content\":"
            + "[{\"type\":\"output_text\",\"text\":"
            + JSON.writeValueAsString(answer)
            + ",\"annotations\":[]}]}}");
    events.send(
        "response.completed",
        "{\"type\":\"response.completed\",\"response\":{\"id\":\"resp_fake\","
            + "\"status\":\"completed\",\"usage\":{\"input_tokens\":12,\"input_tokens_details\":{\"cached_tokens\":0},"
            + "\"output_tokens\":6,\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":18}}}");
  }

  /** Codex's shell tool, asked to run {@code command} in its working directory. */
  private void responsesToolCall(HttpExchange exchange, String command) throws IOException {
    responsesToolCall(
        exchange, null, "exec_command", JSON.writeValueAsString(java.util.Map.of("cmd", command)));
  }

  /** A call of Codex's tool {@code name} (in {@code namespace}, if given) with {@code input}. */
  private void responsesToolCall(
      HttpExchange exchange, @Nullable String namespace, String name, String input)
      throws IOException {
    String arguments = JSON.writeValueAsString(input);
    String call =
        "{\"type\":\"function_call\",\"id\":\"fc_fake\",\"call_id\":\"call_fake\","
            + (namespace == null ? "" : "\"namespace\":\"" + namespace + "\",")
            + "\"name\":\""
            + name
            + "\",\"arguments\":";
    Events events = Events.open(exchange, encoded);
    events.send(
        "response.created",
        "{\"type\":\"response.created\",\"response\":{\"id\":\"resp_tool\",\"status\":\"in_progress\"}}");
    events.send(
        "response.output_item.added",
        "{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":"
            + call
            + "\"\",\"status\":\"in_progress\"}}");
    events.send(
        "response.function_call_arguments.delta",
        "{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_fake\","
            + "\"output_index\":0,\"delta\":"
            + arguments
            + "}");
    events.send(
        "response.output_item.done",
        "{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":"
            + call
            + arguments
            + ",\"status\":\"completed\"}}");
    events.send(
        "response.completed",
        "{\"type\":\"response.completed\",\"response\":{\"id\":\"resp_tool\","
            + "\"status\":\"completed\",\"usage\":{\"input_tokens\":12,\"input_tokens_details\":{\"cached_tokens\":0},"
            + "\"output_tokens\":6,\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":18}}}");
  }

  /** The last user message (Claude Code puts its environment in a system message after it). */
  private static JsonNode lastMessage(JsonNode messages) {
    JsonNode last = JSON.createObjectNode();
    for (JsonNode message : messages) {
      if (message.path("role").asString("").equals("user")) {
        last = message;
      }
    }
    return last;
  }

  /**
   * Whether the newest thing the user side said is a tool's result (the model then sums up). Only
   * the last block counts: Claude Code resumes a conversation by merging the next prompt into the
   * user message that carried the last tool result.
   */
  private static boolean answered(JsonNode messages, String toolUseId) {
    return messages
        .valueStream()
        .flatMap(m -> m.path("content").valueStream())
        .anyMatch(
            block ->
                block.path("type").asString("").equals("tool_result")
                    && block.path("tool_use_id").asString("").equals(toolUseId));
  }

  private static boolean hasToolResult(JsonNode message) {
    JsonNode content = message.path("content");
    return content.isArray()
        && !content.isEmpty()
        && content.get(content.size() - 1).path("type").asString("").equals("tool_result");
  }

  /**
   * The newest prompt in a message: a string content, or its last text block (Claude Code merges a
   * resumed conversation's next prompt into the user message before it, so the script answers the
   * newest one only).
   */
  private static String lastText(JsonNode message) {
    JsonNode content = message.path("content");
    if (content.isString()) {
      return content.asString("");
    }
    String text = "";
    for (JsonNode block : content) {
      if (block.path("type").asString("").equals("text")) {
        text = block.path("text").asString("");
      }
    }
    return text;
  }

  /** The text of a message: a string content, or its text blocks joined. */
  static String textOf(JsonNode message) {
    JsonNode content = message.path("content");
    if (content.isString()) {
      return content.asString("");
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode block : content) {
      text.append(block.path("text").asString(""));
    }
    return text.toString();
  }

  private void fail(HttpExchange exchange) throws IOException {
    byte[] bytes =
        ("{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"bad gateway"
                + " (fake)\"}}")
            .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(failureStatus, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private void json(HttpExchange exchange, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    if (encoded) {
      exchange.getResponseHeaders().add("Content-Encoding", "gzip");
    }
    exchange.sendResponseHeaders(200, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  /** A server-sent event stream, each event flushed as it is sent. */
  private record Events(OutputStream out) {
    static Events open(HttpExchange exchange, boolean encoded) throws IOException {
      exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
      if (encoded) {
        exchange.getResponseHeaders().add("Content-Encoding", "gzip");
      }
      exchange.sendResponseHeaders(200, 0);
      return new Events(exchange.getResponseBody());
    }

    void send(String type, String data) throws IOException {
      raw("event: " + type + "\ndata: " + data + "\n\n");
    }

    void raw(String text) throws IOException {
      out.write(text.getBytes(StandardCharsets.UTF_8));
      out.flush();
    }
  }
}
