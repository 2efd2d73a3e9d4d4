package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.agentcli.FakeModelProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Agent sessions end to end: the real distribution ({@code bin/berth server} and the node it
 * starts) runs the real Claude Code CLI (pinned, from npm) in a real session, confined as a shell
 * is, on the proxy network. The model provider is the one fake here: no real provider is reachable
 * from this machine, so a loopback HTTPS server speaking the Anthropic Messages streaming API
 * answers with scripted turns, one of them a Bash tool call the CLI executes.
 */
class AgentSessionsIT {

  private static final String TOKEN = "sk-e2e-provider-token-4242424242";
  private static final Duration RUN = Duration.ofSeconds(120);

  @TempDir static Path work;
  private static FakeModelProvider provider;
  private static ServerProcess server;
  private static Api api;

  @BeforeAll
  static void start() throws Exception {
    provider = FakeModelProvider.https(Files.createDirectories(work.resolve("provider")));
    provider.echoes(TOKEN);
    Path token = work.resolve("anthropic.token");
    Files.writeString(token, TOKEN + "\n");
    Path providers = work.resolve("providers.json");
    Files.writeString(
        providers,
        "{\"claude-code\": {\"url\": \""
            + provider.url()
            + "\", \"tokenFile\": \""
            + token
            + "\", \"caFile\": \""
            + provider.caCertificate()
            + "\", \"models\": [\"fake-large\", \"fake-small\"]}}");
    Path claude =
        ServerProcess.Launch.plain()
            .root()
            .resolve("tools/agent-clis/node_modules/.bin/claude")
            .toAbsolutePath();
    assertThat(claude)
        .as("the pinned Claude Code CLI; bin/ensure-test-tools installs it")
        .isExecutable();
    Path data = work.resolve("data");
    server =
        ServerProcess.start(
            data,
            Map.of(),
            ServerProcess.Launch.plain()
                .withArguments(
                    "--agent-cli", "claude-code=" + claude, "--providers", providers.toString()));
    api = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
    ServerProcess.killNode(work.resolve("data"));
    if (provider != null) {
      provider.close();
    }
  }

  @Test
  void theConfigOffersOnlyConfiguredAgentTypesAndACreateOfAnotherNamesWhatIsMissing() {
    JsonNode config = api.get("/config").json();
    assertThat(config.path("workloadTypes").valueStream().map(JsonNode::asString))
        .containsExactly("shell", "claude-code");
    assertThat(config.path("agents").path("claude-code").path("models").toString())
        .isEqualTo("[\"fake-large\",\"fake-small\"]");
    assertThat(config.path("claudeCode").path("defaultModel").asString())
        .isEqualTo("platform-default");

    Api.Answer codex = api.post("/sessions", "{\"name\":\"c\",\"workloadType\":\"codex\"}");
    assertThat(codex.status()).as(codex.body()).isEqualTo(503);
    assertThat(codex.reason()).isEqualTo("WORKLOAD_UNAVAILABLE");
    assertThat(codex.json().path("detail").asString()).contains("its CLI", "its provider");

    Api.Answer unknown = api.post("/sessions", "{\"name\":\"u\",\"workloadType\":\"cobol\"}");
    assertThat(unknown.status()).isEqualTo(400);
    Api.Answer modelOnShell = api.post("/sessions", "{\"name\":\"s\",\"model\":\"fake-large\"}");
    assertThat(modelOnShell.status()).isEqualTo(400);
    Api.Answer badModel =
        api.post(
            "/sessions", "{\"name\":\"b\",\"workloadType\":\"claude-code\",\"model\":\"a b\"}");
    assertThat(badModel.status()).isEqualTo(400);
  }

  @Test
  void aClaudeSessionAnswersRunsItsToolKeepsItsConversationAcrossASnapshotAndNeverShowsTheToken() {
    String id = createAgent("dharma");
    assertThat(api.get("/sessions/" + id).json().path("model").asString())
        .isEqualTo("platform-default");

    JsonNode first = prompt(id, "hello, my name is Dharma");
    assertThat(first.path("status").asString()).isEqualTo("queued");
    assertThat(finished(id, first.path("executionId").asString())).isEqualTo("SUCCEEDED");
    assertThat(api.text(id, 0)).contains("Hello from the fake provider.");

    String touch = prompt(id, "please touch the marker").path("executionId").asString();
    assertThat(finished(id, touch)).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains("my name is Dharma");

    String echo = prompt(id, "please echo the token in two deltas").path("executionId").asString();
    assertThat(finished(id, echo)).isEqualTo("SUCCEEDED");

    List<JsonNode> transcript = transcript(id);
    assertThat(transcript).extracting(e -> e.path("type").asString()).contains("tool-call");
    assertThat(
            transcript.stream()
                .filter(e -> e.path("type").asString().equals("tool-call"))
                .map(JsonNode::toString))
        .anyMatch(call -> call.contains("Bash") && call.contains("touch marker.txt"));
    String everything = api.text(id, 0) + transcript;
    assertThat(everything).contains("the token is", "[REDACTED]").doesNotContain(TOKEN);
    assertThat(provider.received())
        .allSatisfy(r -> assertThat(r.headers()).containsEntry("authorization", "Bearer " + TOKEN));

    // A snapshot, then a write that restores it: the next prompt continues the conversation, and
    // a cursor taken before the snapshot reads exactly what came after it.
    long cursor = readEnd(id);
    Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    assertThat(snapshot.json().path("state").asString()).isEqualTo("snapshot");

    Api.Answer tooLarge =
        api.post(
            "/sessions/" + id + "/write", "{\"payload\":\"" + "x".repeat((1 << 20) + 1) + "\"}");
    assertThat(tooLarge.status()).as("checked before any restore").isEqualTo(413);
    assertThat(tooLarge.reason()).isEqualTo("PROMPT_TOO_LARGE");
    assertThat(api.get("/sessions/" + id).json().path("state").asString()).isEqualTo("snapshot");

    JsonNode again = prompt(id, "what is my name?");
    assertThat(again.path("path").asString()).isEqualTo("snapshot->restore->write");
    assertThat(finished(id, again.path("executionId").asString())).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains("my name is Dharma");
    assertThat(api.text(id, cursor)).startsWith("Hello from the fake provider.");
  }

  @Test
  void aRunningPromptStreamsBeforeItEndsIsCancelledAndAFullQueueAnswers429() {
    String id = createAgent("queue");
    provider.holdAnswers();
    try {
      String running = prompt(id, "hold on").path("executionId").asString();
      // The answer streams before the run ends: the first deltas are readable while it is held.
      await().atMost(RUN).until(() -> api.text(id, 0).contains("Hello from the fake"));
      assertThat(execution(id, running).path("state").asString()).isEqualTo("RUNNING");

      List<String> queued = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        queued.add(prompt(id, "waiting " + i).path("executionId").asString());
      }
      Api.Answer full = api.post("/sessions/" + id + "/write", "{\"payload\":\"one too many\"}");
      assertThat(full.status()).as(full.body()).isEqualTo(429);
      assertThat(full.reason()).isEqualTo("PROMPT_QUEUE_FULL");

      for (String waiting : queued) {
        api.post("/sessions/" + id + "/executions/" + waiting + "/cancel", "{}");
      }
      Api.Answer cancel = api.post("/sessions/" + id + "/executions/" + running + "/cancel", "{}");
      assertThat(cancel.status()).as(cancel.body()).isEqualTo(200);
      assertThat(finished(id, running)).isEqualTo("CANCELLED");
      assertThat(execution(id, queued.getLast()).path("state").asString()).isEqualTo("CANCELLED");
    } finally {
      provider.release();
    }
  }

  @Test
  void theCliPrintsAPromptsAnswerAsItStreamsAndTheTranscriptLineByLine() throws Exception {
    String id = createAgent("cli");

    String[] prompted = berth("prompt", id, "hello from the command line");
    assertThat(prompted[0]).as(prompted[2]).isEqualTo("0");
    assertThat(prompted[1]).isEqualTo("Hello from the fake provider.\n");

    String[] transcript = berth("transcript", id);
    assertThat(transcript[0]).isEqualTo("0");
    assertThat(transcript[1])
        .contains("turn-started  hello from the command line")
        .contains("assistant-text  Hello")
        .contains("turn-finished  succeeded");

    String[] queued = berth("prompt", "--no-wait", id, "once more");
    assertThat(queued[1].strip()).matches("x-[0-9a-f]{24}");
    assertThat(finished(id, queued[1].strip())).isEqualTo("SUCCEEDED");
  }

  /** Runs {@code bin/berth} with the server's URL and token; its exit status and stdout. */
  private static String[] berth(String... arguments) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ServerProcess.Launch.plain().root().resolve("bin/berth").toString());
    command.addAll(List.of(arguments));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(false);
    builder.environment().put("BERTH_URL", server.baseUrl());
    builder.environment().put("BERTH_TOKEN", ServerProcess.ADMIN_TOKEN);
    builder.environment().put("HOME", work.toString());
    Process process =
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
    String out =
        new String(
            process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    String err =
        new String(
            process.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    process.waitFor();
    return new String[] {String.valueOf(process.exitValue()), out, err};
  }

  private static String createAgent(String name) {
    Api.Answer created =
        api.post("/sessions", "{\"name\":\"" + name + "\",\"workloadType\":\"claude-code\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json().path("id").asString();
  }

  private static JsonNode prompt(String id, String text) {
    Api.Answer answer = api.post("/sessions/" + id + "/write", "{\"payload\":\"" + text + "\"}");
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json();
  }

  private static JsonNode execution(String id, String execution) {
    Api.Answer answer = api.get("/sessions/" + id + "/executions/" + execution);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json();
  }

  private static String finished(String id, String execution) {
    await()
        .atMost(RUN)
        .until(
            () ->
                List.of("SUCCEEDED", "FAILED", "CANCELLED", "LOST")
                    .contains(execution(id, execution).path("state").asString()));
    return execution(id, execution).path("state").asString();
  }

  private static List<JsonNode> transcript(String id) {
    Api.Answer answer = api.get("/sessions/" + id + "/transcript?cursor=0");
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json().path("entries").valueStream().toList();
  }

  private static long readEnd(String id) {
    Api.Answer answer =
        api.post("/sessions/" + id + "/read", "{\"offset\":" + Long.MAX_VALUE + "}");
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json().path("nextOffset").asLong();
  }
}
