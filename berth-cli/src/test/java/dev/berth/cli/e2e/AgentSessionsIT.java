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
 * starts) runs the real Claude Code and Codex CLIs (pinned, from npm) in real sessions, confined as
 * a shell is, on the proxy network. The model provider is the one fake here: no real provider is
 * reachable from this machine, so a loopback HTTPS server speaking the Anthropic Messages and the
 * OpenAI Responses streaming APIs answers with scripted turns, one of them a tool call the CLI
 * executes.
 */
class AgentSessionsIT {

  private static final String TOKEN = "sk-e2e-provider-token-4242424242";
  private static final Duration RUN = Duration.ofSeconds(120);
  private static final String PLUGIN_MARK = "zebra-4711";
  private static final String TUNED_BEFORE = "okapi-1001";
  private static final String TUNED_AFTER = "okapi-2002";
  private static Path tunedSkill;

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
            + "\", \"models\": [\"fake-large\", \"fake-small\"]},"
            // A named model: for its own default Codex offers a code mode rather than its shell
            // tool.
            + " \"codex\": {\"url\": \""
            + provider.url()
            + "\", \"tokenFile\": \""
            + token
            + "\", \"caFile\": \""
            + provider.caCertificate()
            + "\", \"api\": \"openai\", \"model\": \"gpt-5-codex\"}}");
    // The marketplace: one plugin, whose skill's description the CLI sends to the model.
    Path plugins = work.resolve("marketplace");
    Path probe = Files.createDirectories(plugins.resolve("probe"));
    Files.createDirectories(probe.resolve(".claude-plugin"));
    Files.writeString(
        probe.resolve(".claude-plugin/plugin.json"),
        "{\"name\":\"probe\",\"version\":\"1.0.0\",\"description\":\"Berth's test plugin\"}");
    Files.createDirectories(probe.resolve("skills/berth-probe"));
    Files.writeString(
        probe.resolve("skills/berth-probe/SKILL.md"),
        "---\nname: berth-probe\ndescription: Knows the "
            + PLUGIN_MARK
            + " marker.\n---\nSay it.\n");
    // A second plugin, for the refresh test alone: it changes in the marketplace while a session
    // holds it.
    tunedSkill = Files.createDirectories(plugins.resolve("tuned/skills/berth-tuned"));
    Files.createDirectories(plugins.resolve("tuned/.claude-plugin"));
    Files.writeString(
        plugins.resolve("tuned/.claude-plugin/plugin.json"),
        "{\"name\":\"tuned\",\"version\":\"1.0.0\",\"description\":\"Berth's refreshed plugin\"}");
    Files.writeString(tunedSkill.resolve("SKILL.md"), tunedSkill(TUNED_BEFORE));
    Path claude = pinnedCli("claude");
    Path codex = pinnedCli("codex");
    Path data = work.resolve("data");
    server =
        ServerProcess.start(
            data,
            Map.of(),
            ServerProcess.Launch.plain()
                .withArguments(
                    "--agent-cli",
                    "claude-code=" + claude,
                    "--agent-cli",
                    "codex=" + codex,
                    "--providers",
                    providers.toString(),
                    "--plugins-dir",
                    plugins.toString()));
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
        .containsExactly("shell", "claude-code", "codex");
    assertThat(config.path("agents").path("claude-code").path("models").toString())
        .isEqualTo("[\"fake-large\",\"fake-small\"]");
    assertThat(config.path("claudeCode").path("defaultModel").asString())
        .isEqualTo("platform-default");
    assertThat(config.path("plugins").toString()).isEqualTo("[\"probe\",\"tuned\"]");
    assertThat(config.path("agents").path("claude-code").path("takesPlugins").asBoolean()).isTrue();
    assertThat(config.path("agents").path("codex").path("takesPlugins").asBoolean()).isFalse();

    Api.Answer minimax =
        api.post("/sessions", "{\"name\":\"m\",\"workloadType\":\"minimax-code\"}");
    assertThat(minimax.status()).as(minimax.body()).isEqualTo(503);
    assertThat(minimax.reason()).isEqualTo("WORKLOAD_UNAVAILABLE");
    assertThat(minimax.json().path("detail").asString()).contains("its provider");

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
    // The provider is shared with the Codex test, whose token goes as Bearer.
    assertThat(provider.received().stream().filter(r -> r.path().startsWith("/v1/messages")))
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.headers()).containsEntry("x-api-key", TOKEN));

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
  void eachAgentSessionHasAProxyProcessNoProcessShowsTheTokenAndADeadProxyFailsThePromptSayingSo()
      throws Exception {
    Path nodeInfo = work.resolve("data").resolve("node").resolve("node.json");
    List<Long> before = Files.exists(nodeInfo) ? proxies(nodeInfo) : List.of();
    String id = createAgent("proc");
    String run = prompt(id, "hello from a process check").path("executionId").asString();
    assertThat(finished(id, run)).isEqualTo("SUCCEEDED");

    long node = nodePid(nodeInfo);
    List<Long> proxies = proxies(nodeInfo);
    List<Long> mine = proxies.stream().filter(pid -> !before.contains(pid)).toList();
    assertThat(mine).as("the session's own proxy process").hasSize(1);
    List<Long> all = new ArrayList<>(proxies);
    all.add(node);
    all.add(server.process().pid());
    for (long pid : all) {
      assertThat(proc(pid, "cmdline")).as("cmdline of %d", pid).isNotEmpty().doesNotContain(TOKEN);
      assertThat(proc(pid, "environ")).as("environ of %d", pid).isNotEmpty().doesNotContain(TOKEN);
    }

    ProcessHandle proxy = ProcessHandle.of(mine.getFirst()).orElseThrow();
    proxy.destroyForcibly();
    proxy.onExit().join();
    Api.Answer refused = api.post("/sessions/" + id + "/write", "{\"payload\":\"are you there?\"}");
    assertThat(refused.status()).as(refused.body()).isGreaterThanOrEqualTo(500);
    assertThat(refused.body()).contains("credential proxy of session", "exited with code");
  }

  private static long nodePid(Path nodeInfo) throws java.io.IOException {
    return tools.jackson.databind.json.JsonMapper.shared()
        .readTree(Files.readString(nodeInfo))
        .path("pid")
        .asLong();
  }

  private static List<Long> proxies(Path nodeInfo) throws java.io.IOException {
    return ProcessHandle.of(nodePid(nodeInfo))
        .orElseThrow()
        .children()
        .map(ProcessHandle::pid)
        .filter(pid -> proc(pid, "cmdline").contains("dev.berth.agent.proxy.ProxyMain"))
        .toList();
  }

  private static String proc(long pid, String file) {
    try {
      return Files.readString(
          Path.of("/proc", Long.toString(pid), file), java.nio.charset.StandardCharsets.ISO_8859_1);
    } catch (java.io.IOException e) {
      return "";
    }
  }

  @Test
  void aSessionGetsExactlyThePluginsItWasCreatedWithForItsWholeLife() {
    JsonNode created = createWithPlugin("plug", "probe");
    String id = created.path("id").asString();
    assertThat(created.path("plugins").toString()).isEqualTo("[\"probe\"]");

    String first = prompt(id, "hello with plugins").path("executionId").asString();
    assertThat(finished(id, first)).as(() -> api.text(id, 0)).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains(PLUGIN_MARK);
    assertThat(api.post("/sessions/" + id + "/snapshot", "{}").status()).isEqualTo(200);
    String again = prompt(id, "hello again").path("executionId").asString();
    assertThat(finished(id, again)).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains(PLUGIN_MARK);

    String plain = createAgent("plain");
    String bare = prompt(plain, "hello without plugins").path("executionId").asString();
    assertThat(finished(plain, bare)).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).doesNotContain(PLUGIN_MARK);
    assertThat(api.get("/sessions/" + plain).json().path("plugins").toString()).isEqualTo("[]");

    for (String refused :
        List.of(
            "{\"name\":\"x\",\"workloadType\":\"claude-code\",\"plugins\":[\"nope\"]}",
            "{\"name\":\"x\",\"workloadType\":\"claude-code\",\"plugins\":[\"probe\",\"probe\"]}",
            "{\"name\":\"x\",\"workloadType\":\"claude-code\",\"plugins\":[\"../etc\"]}",
            "{\"name\":\"x\",\"workloadType\":\"codex\",\"plugins\":[\"probe\"]}",
            "{\"name\":\"x\",\"plugins\":[\"probe\"]}")) {
      Api.Answer answer = api.post("/sessions", refused);
      assertThat(answer.status()).as(refused + " -> " + answer.body()).isEqualTo(400);
    }
  }

  private static String tunedSkill(String mark) {
    return "---\nname: berth-tuned\ndescription: Knows the " + mark + " marker.\n---\nSay it.\n";
  }

  @Test
  void aPluginRefreshGivesTheSessionTheMarketplacesPluginAsItIsNowAndKeepsItsConversation()
      throws Exception {
    String id = createWithPlugin("refresh", "tuned").path("id").asString();
    String first = prompt(id, "hello, my name is Ada").path("executionId").asString();
    assertThat(finished(id, first)).as(() -> api.text(id, 0)).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains(TUNED_BEFORE);

    Files.writeString(tunedSkill.resolve("SKILL.md"), tunedSkill(TUNED_AFTER));
    String second = prompt(id, "still there?").path("executionId").asString();
    assertThat(finished(id, second)).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body())
        .as("nothing refreshes by itself")
        .contains(TUNED_BEFORE)
        .doesNotContain(TUNED_AFTER);

    provider.holdAnswers();
    String running;
    try {
      running = prompt(id, "hold on").path("executionId").asString();
      await()
          .atMost(RUN)
          .until(() -> "RUNNING".equals(execution(id, running).path("state").asString()));
      Api.Answer busy = api.post("/sessions/" + id + "/plugins/refresh", "");
      assertThat(busy.status()).as(busy.body()).isEqualTo(409);
      assertThat(busy.reason()).isEqualTo("PROMPTS_RUNNING");
    } finally {
      provider.release();
    }
    assertThat(finished(id, running)).isEqualTo("SUCCEEDED");

    String[] refreshed = berth("plugins", "refresh", id);
    assertThat(refreshed[0]).as(refreshed[2]).isEqualTo("0");
    assertThat(refreshed[1]).isEqualTo("tuned\n");
    String third = prompt(id, "what is my name?").path("executionId").asString();
    assertThat(finished(id, third)).isEqualTo("SUCCEEDED");
    // The conversation holds the first turn's listing of skills; Claude Code lists the refreshed
    // plugin's skills again after it.
    String asked = provider.answersAsked().getLast().body();
    assertThat(asked).as("the same conversation").contains("my name is Ada");
    assertThat(asked.indexOf(TUNED_AFTER))
        .as("the refreshed plugin, listed after the one the session had")
        .isGreaterThan(asked.lastIndexOf(TUNED_BEFORE));

    // The session, hostile, turns its plugin folder into a link to a host directory: the node
    // writes nothing through it, and says how to get out.
    Path victim = Files.createDirectories(work.resolve("host-directory"));
    Files.writeString(victim.resolve("kept.txt"), "the host's");
    String link =
        // (Through Python: Claude Code asks before mv or ln outside the workspace, and nobody
        // answers it here; Bash itself is allowed, which is what a hostile prompt needs.)
        prompt(
                id,
                "run: python3 -c \"import os; h = os.path.expanduser('~/.berth/');"
                    + " os.rename(h + 'plugins', h + 'mine'); os.symlink('"
                    + victim
                    + "', h + 'plugins')\"")
            .path("executionId")
            .asString();
    assertThat(finished(id, link)).isEqualTo("SUCCEEDED");
    assertThat(transcript(id).toString()).as("the tool ran").doesNotContain("permission-denied");
    Api.Answer unsafe = api.post("/sessions/" + id + "/plugins/refresh", "");
    assertThat(unsafe.status()).as(unsafe.body()).isEqualTo(409);
    assertThat(unsafe.reason()).isEqualTo("PLUGINS_FOLDER_UNSAFE");
    try (var left = Files.list(victim)) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly("kept.txt");
    }
    String unlink =
        prompt(
                id,
                "run: python3 -c \"import os; os.remove(os.path.expanduser('~/.berth/plugins'))\"")
            .path("executionId")
            .asString();
    assertThat(finished(id, unlink)).isEqualTo("SUCCEEDED");
    Api.Answer again = api.post("/sessions/" + id + "/plugins/refresh", "");
    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(again.json().path("plugins").toString()).isEqualTo("[\"tuned\"]");

    String plain = createAgent("unplugged");
    Api.Answer none = api.post("/sessions/" + plain + "/plugins/refresh", "{}");
    assertThat(none.status()).as(none.body()).isEqualTo(200);
    assertThat(none.json().path("plugins").toString()).isEqualTo("[]");
    assertThat(none.json().path("session").path("id").asString()).isEqualTo(plain);
    String shell =
        api.post("/sessions", "{\"name\":\"refresh-shell\"}").json().path("id").asString();
    Api.Answer notAnAgent = api.post("/sessions/" + shell + "/plugins/refresh", "");
    assertThat(notAnAgent.status()).as(notAnAgent.body()).isEqualTo(400);
    assertThat(notAnAgent.body()).contains("has no plugins");
  }

  @Test
  void aCodexSessionRunsItsToolAndKeepsItsConversationAcrossASnapshot() {
    String id = createAgent("codex", "codex");
    assertThat(api.get("/sessions/" + id).json().path("model").asString())
        .isEqualTo("platform-default");

    String hello = prompt(id, "hello, my name is Rosa").path("executionId").asString();
    assertThat(finished(id, hello)).as(() -> api.text(id, 0)).isEqualTo("SUCCEEDED");
    assertThat(api.text(id, 0)).contains("Hello from the fake provider.");
    String touch = prompt(id, "please touch the marker").path("executionId").asString();
    assertThat(finished(id, touch)).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains("my name is Rosa");

    List<JsonNode> transcript = transcript(id);
    assertThat(transcript.stream().map(JsonNode::toString))
        .anyMatch(e -> e.contains("\"tool-call\"") && e.contains("touch marker.txt"));
    // The command ran, confined, in the workspace: its result is no error (exit status 0).
    assertThat(transcript.stream().filter(e -> e.path("type").asString().equals("tool-result")))
        .isNotEmpty()
        .allSatisfy(result -> assertThat(result.path("error").asBoolean()).isFalse());
    assertThat(api.text(id, 0)).endsWith("Done.\n").doesNotContain(TOKEN);

    Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    JsonNode again = prompt(id, "what is my name?");
    assertThat(again.path("path").asString()).isEqualTo("snapshot->restore->write");
    assertThat(finished(id, again.path("executionId").asString())).isEqualTo("SUCCEEDED");
    assertThat(provider.answersAsked().getLast().body()).contains("my name is Rosa");
    // The provider is shared with the Claude tests, whose token goes in x-api-key.
    assertThat(provider.received().stream().filter(r -> r.path().startsWith("/v1/responses")))
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.headers()).containsEntry("authorization", "Bearer " + TOKEN));
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

  @Test
  void theTranscriptStreamCarriesEachEntryAndEndsWhenTheSessionIsDeleted() throws Exception {
    followTheTranscriptUntil("follow", id -> api.delete("/sessions/" + id), List.of(200, 202, 204));
  }

  @Test
  void theTranscriptStreamEndsWhenTheSessionIsSnapshotted() throws Exception {
    followTheTranscriptUntil(
        "follow-snapshot", id -> api.post("/sessions/" + id + "/snapshot", "{}"), List.of(200));
  }

  /**
   * Follows a new session's transcript over a prompt, then has {@code end} take its runtime away:
   * the stream must end, as a stream ends.
   */
  private static void followTheTranscriptUntil(
      String name, java.util.function.Function<String, Api.Answer> end, List<Integer> ended)
      throws Exception {
    String id = createAgent(name);
    java.util.Queue<String> lines = new java.util.concurrent.ConcurrentLinkedQueue<>();
    java.util.concurrent.CompletableFuture<Integer> stream =
        api.follow("/sessions/" + id + "/transcript/stream?cursor=0", lines::add);

    assertThat(finished(id, prompt(id, "hello over the stream").path("executionId").asString()))
        .isEqualTo("SUCCEEDED");
    await()
        .atMost(RUN)
        .until(() -> lines.stream().anyMatch(l -> l.contains("\"type\":\"turn-finished\"")));
    assertThat(lines).anyMatch(l -> l.startsWith("event: entry"));

    Api.Answer answer = end.apply(id);
    assertThat(answer.status()).as(answer.body()).isIn(ended);

    // The node ends the stream when the runtime goes, and the control plane's relay with it: a
    // follower is not left waiting on keep-alives of a runtime that is no more.
    assertThat(stream.get(RUN.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(200);
    // It ends as a stream ends, not with a problem written into the middle of it.
    assertThat(lines)
        .as(String.join("\n", lines))
        .allMatch(
            l ->
                l.isEmpty()
                    || l.startsWith("id: ")
                    || l.startsWith("event: ")
                    || l.startsWith("data: ")
                    || l.startsWith(":"));
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

  /** The pinned CLI, from the repository's tools/agent-clis. */
  private static Path pinnedCli(String name) {
    Path cli =
        ServerProcess.Launch.plain()
            .root()
            .resolve("tools/agent-clis/node_modules/.bin/" + name)
            .toAbsolutePath();
    assertThat(cli).as("the pinned %s CLI; bin/ensure-test-tools installs it", name).isExecutable();
    return cli;
  }

  /** A claude-code session created with the marketplace's {@code plugin}: the 201's body. */
  private static JsonNode createWithPlugin(String name, String plugin) {
    Api.Answer created =
        api.post(
            "/sessions",
            "{\"name\":\""
                + name
                + "\",\"workloadType\":\"claude-code\",\"plugins\":[\""
                + plugin
                + "\"]}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json();
  }

  private static String createAgent(String name) {
    return createAgent(name, "claude-code");
  }

  private static String createAgent(String name, String type) {
    Api.Answer created =
        api.post("/sessions", "{\"name\":\"" + name + "\",\"workloadType\":\"" + type + "\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json().path("id").asString();
  }

  private static JsonNode prompt(String id, String text) {
    Api.Answer answer =
        api.post(
            "/sessions/" + id + "/write",
            tools.jackson.databind.json.JsonMapper.shared()
                .writeValueAsString(Map.of("payload", text)));
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
