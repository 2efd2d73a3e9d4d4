package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.ResourceLimits;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.proxy.CredentialProxy;
import dev.berth.agent.proxy.ProviderProfile;
import dev.berth.core.execution.ExecutionState;
import dev.berth.core.session.SessionId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Claude Code and Codex CLIs (pinned in tools/agent-clis, installed by
 * bin/ensure-test-tools) run prompt by prompt through the runner, reaching the fake model provider
 * (HTTPS on loopback: no real provider can be reached here) only through the credential proxy,
 * which alone has the token. The sandbox is left out here ({@code Sandbox.none()}); the agent
 * session tests run the same runner confined.
 */
class PromptRunnerWithRealClisTest {

  private static final String TOKEN = "sk-fake-provider-real-token-4242424242";
  private static final Duration RUN = Duration.ofSeconds(90);

  @TempDir Path root;
  private FakeModelProvider provider;
  private CredentialProxy proxy;
  private OutputLog output;
  private LaunchPlan plan;
  private PromptRunner runner;
  private TranscriptLog transcript;
  private Path state;

  @BeforeEach
  void startProvider() throws Exception {
    provider = FakeModelProvider.https(root);
    provider.echoes(TOKEN);
    state = root.resolve("state");
    Files.createDirectories(state);
  }

  @AfterEach
  void stop() {
    if (runner != null) {
      runner.close();
    }
    if (plan != null) {
      plan.close();
    }
    if (output != null) {
      output.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    provider.close();
  }

  @Test
  void twoClaudePromptsAreOneConversationAndTheProviderSeesOnlyTheProxysToken() {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        PromptRunner.Limits.defaults());

    ExecutionView first = finished(runner.submit(Turn.of("hello, my name is Dharma")));
    ExecutionView second = finished(runner.submit(Turn.of("what is my name?")));

    assertThat(first.state()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(second.state()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(log()).isEqualTo("Hello from the fake provider.\nHello from the fake provider.\n");
    List<FakeModelProvider.Received> asked = provider.answersAsked();
    assertThat(asked.getLast().body())
        .as("the second prompt carries the first turn")
        .contains("my name is Dharma");
    assertThat(provider.received())
        .allSatisfy(r -> assertThat(r.headers()).containsEntry("x-api-key", TOKEN));
    assertThat(Conversation.read(state).hasRun()).isTrue();
    assertThat(transcript())
        .contains(
            "\"type\":\"turn-started\"",
            "\"prompt\":\"what is my name?\"",
            "\"type\":\"assistant-text\"",
            "\"type\":\"usage\"",
            "\"outcome\":\"succeeded\"");
  }

  @Test
  void eachClaudeTurnRecordsItsOwnCostAndTheConversationsTotalAlsoAfterARestart() {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        PromptRunner.Limits.defaults());
    finished(runner.submit(Turn.of("hello, my name is Dharma")));
    finished(runner.submit(Turn.of("what is my name?")));
    // The node restarts: a new runner on the same state continues the conversation.
    runner.close();
    runner = runner(ClaudeCodeAdapter.claudeCode(), PromptRunner.Limits.defaults());
    finished(runner.submit(Turn.of("and again?")));

    List<tools.jackson.databind.JsonNode> entries =
        transcript.after(0, 10_000).stream()
            .filter(e -> e.path("type").asString("").equals("usage"))
            .toList();
    assertThat(entries).hasSize(3);
    double turn = entries.getFirst().path("costUsd").asDouble();
    assertThat(turn).isPositive();
    assertThat(entries)
        .allSatisfy(e -> assertThat(e.path("costUsd").asDouble()).isEqualTo(turn))
        .allSatisfy(e -> assertThat(e.path("inputTokens").asLong()).isEqualTo(10));
    assertThat(entries)
        .extracting(e -> e.path("totalCostUsd").asDouble())
        .satisfiesExactly(
            t -> assertThat(t).isCloseTo(turn, within(1e-12)),
            t -> assertThat(t).isCloseTo(2 * turn, within(1e-12)),
            t -> assertThat(t).isCloseTo(3 * turn, within(1e-12)));
  }

  @Test
  void claudesRetriesOfAFailingProviderShowInTheOutputAndTheTranscriptAsTheyHappen() {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        PromptRunner.Limits.defaults());
    provider.failsAnswers(2, 502);

    ExecutionView run = finished(runner.submit(Turn.of("say hello")));

    assertThat(run.state()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(log())
        .startsWith("[model API error 502 (server_error); retry 1 of 10 in ")
        .contains("retry 2 of 10 in ")
        .endsWith("]\nHello from the fake provider.\n");
    assertThat(transcript())
        .contains("\"type\":\"retry\"", "\"attempt\":2", "\"status\":502")
        .doesNotContain("\"type\":\"error\"")
        .doesNotContain("\"type\":\"raw\"");
  }

  @Test
  void claudesAnswerReachesTheByteLogBeforeTheRunEnds() {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        PromptRunner.Limits.defaults());
    provider.holdAnswers();

    ExecutionView run = runner.submit(Turn.of("say hello"));

    await().atMost(RUN).until(() -> log().contains("Hello from the fake"));
    assertThat(runner.get(run.id()).orElseThrow().state()).isEqualTo(ExecutionState.RUNNING);
    provider.release();
    assertThat(finished(run).state()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(log()).isEqualTo("Hello from the fake provider.\n");
  }

  @Test
  void claudeRunsTheToolTheModelAsksForInTheWorkspace() {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        PromptRunner.Limits.defaults());

    assertThat(finished(runner.submit(Turn.of("please touch the marker"))).state())
        .isEqualTo(ExecutionState.SUCCEEDED);

    assertThat(state.resolve("home/workspace/marker.txt")).exists();
    assertThat(transcript())
        .contains(
            "\"type\":\"tool-call\"",
            "\"name\":\"Bash\"",
            "touch marker.txt",
            "\"type\":\"tool-result\"");
    assertThat(log()).endsWith("Done.\n");
  }

  @Test
  void aTokenTheProviderEchoesIsRedactedInTheByteLogAndTranscriptAlsoSplitAcrossDeltas() {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        PromptRunner.Limits.defaults());

    finished(runner.submit(Turn.of("please echo the token in two deltas")));
    finished(runner.submit(Turn.of("please echo the token")));

    assertThat(log())
        .doesNotContain(TOKEN)
        .doesNotContain(TOKEN.substring(0, 20))
        .contains("the token is [REDACTED] indeed");
    assertThat(transcript())
        .doesNotContain(TOKEN)
        .doesNotContain(TOKEN.substring(TOKEN.length() / 2));
  }

  @Test
  void theQueueRefusesTheSecondWaitingPromptAndCancelKillsTheRunningOne() throws Exception {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        new PromptRunner.Limits(1, 8L << 20, Duration.ofMinutes(30), 16L << 20, 256L << 20));
    provider.holdAnswers();

    ExecutionView running = runner.submit(Turn.of("say hello"));
    await()
        .atMost(RUN)
        .until(() -> runner.get(running.id()).orElseThrow().state() == ExecutionState.RUNNING);
    ExecutionView waiting = runner.submit(Turn.of("and again"));
    assertThatThrownBy(() -> runner.submit(Turn.of("one too many")))
        .isInstanceOf(PromptRunner.QueueFullException.class)
        .hasMessageContaining("at most 1");
    assertThatThrownBy(() -> Turn.of("x".repeat(Turn.MAX_PROMPT_BYTES + 1)))
        .isInstanceOf(Turn.PromptTooLargeException.class)
        .hasMessageContaining("prompt exceeds 1 MiB");

    await().atMost(RUN).until(() -> log().contains("Hello from the fake"));
    runner.cancel(running.id());

    assertThat(finished(running).state()).isEqualTo(ExecutionState.CANCELLED);
    assertThat(runner.cancel(waiting.id()).state())
        .isIn(ExecutionState.CANCELLED, ExecutionState.RUNNING);
    provider.release();
    assertThat(runner.awaitIdle(RUN)).isTrue();
    assertThat(transcript()).contains("\"outcome\":\"cancelled\"");
  }

  @Test
  void aDrainClosesAdmissionLetsTheAcceptedPromptFinishAndReopensForTheNext() throws Exception {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        PromptRunner.Limits.defaults());
    provider.holdAnswers();
    ExecutionView accepted = runner.submit(Turn.of("say hello"));

    runner.closeAdmission();
    assertThatThrownBy(() -> runner.submit(Turn.of("too late")))
        .isInstanceOf(PromptRunner.AdmissionClosedException.class)
        .hasMessageContaining("being suspended");
    assertThat(runner.awaitIdle(Duration.ofMillis(200))).isFalse();
    provider.release();
    assertThat(runner.awaitIdle(RUN)).isTrue();
    assertThat(runner.get(accepted.id()).orElseThrow().state()).isEqualTo(ExecutionState.SUCCEEDED);

    runner.openAdmission();
    assertThat(finished(runner.submit(Turn.of("say hello again"))).state())
        .isEqualTo(ExecutionState.SUCCEEDED);
  }

  @Test
  void theNodeHoldsTheRunnerOnlyWhenNoPromptRunsOrWaitsAndAPromptSentMeanwhileRunsAfter()
      throws Exception {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        PromptRunner.Limits.defaults());
    provider.holdAnswers();
    runner.submit(Turn.of("say hello"));
    assertThatThrownBy(() -> runner.whileIdle(() -> "held"))
        .isInstanceOf(PromptRunner.BusyException.class)
        .hasMessageContaining("1 prompt running or waiting");
    provider.release();
    assertThat(runner.awaitIdle(RUN)).isTrue();

    java.util.concurrent.atomic.AtomicReference<ExecutionView> meanwhile =
        new java.util.concurrent.atomic.AtomicReference<>();
    String held =
        runner.whileIdle(
            () -> {
              meanwhile.set(runner.submit(Turn.of("sent while held")));
              assertThat(runner.busy()).as("a checkpoint's drain waits for the hold").isTrue();
              // Nothing is to happen here: a worker that did not wait would start the run within
              // milliseconds, so a few hundred of them show that it waits.
              try {
                Thread.sleep(300);
              } catch (InterruptedException e) {
                throw new AssertionError(e);
              }
              assertThat(runner.get(meanwhile.get().id()).orElseThrow().state())
                  .isEqualTo(ExecutionState.QUEUED);
              assertThatThrownBy(() -> runner.whileIdle(() -> "twice"))
                  .isInstanceOf(PromptRunner.BusyException.class);
              return "held";
            });
    assertThat(held).isEqualTo("held");
    assertThat(finished(meanwhile.get()).state()).isEqualTo(ExecutionState.SUCCEEDED);

    runner.closeAdmission();
    assertThatThrownBy(() -> runner.whileIdle(() -> "held"))
        .isInstanceOf(PromptRunner.AdmissionClosedException.class);
  }

  @Test
  void aRunThatOutlivesItsTimeoutIsKilledAndDoesNotCountAsTheConversationsFirstRun() {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        new PromptRunner.Limits(64, 8L << 20, Duration.ofSeconds(4), 16L << 20, 256L << 20));
    provider.holdAnswers();

    ExecutionView run = finished(runner.submit(Turn.of("say hello")));

    assertThat(run.state()).isEqualTo(ExecutionState.CANCELLED);
    assertThat(run.timedOut()).isTrue();
    assertThat(Conversation.read(state).hasRun()).isFalse();
    assertThat(transcript()).contains("\"outcome\":\"timed-out\"");
  }

  @Test
  void aFullSessionOutputEndsWithItsMarkerAndRefusesNewPrompts() {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        new PromptRunner.Limits(
            64,
            8L << 20,
            Duration.ofMinutes(30),
            16L << 20,
            PromptRunner.SESSION_FULL.length() + 10));

    finished(runner.submit(Turn.of("say hello")));

    assertThat(log()).isEqualTo("Hello from" + PromptRunner.SESSION_FULL);
    assertThatThrownBy(() -> runner.submit(Turn.of("more")))
        .isInstanceOf(PromptRunner.OutputFullException.class)
        .hasMessageContaining("session output limit reached");
  }

  @Test
  void aPromptTheNodeCannotRecordIsLostAndTheNextRunsAsUsual() throws Exception {
    start(
        ClaudeCodeAdapter.claudeCode(),
        ProviderProfile.Api.ANTHROPIC,
        PromptRunner.Limits.defaults());
    // A transcript the node cannot write (a directory where its file is: the test's full disk).
    Path transcript = state.resolve(TranscriptLog.FILE);
    Files.deleteIfExists(transcript);
    Files.createDirectory(transcript);

    // Its turn could not even be recorded as started: it never ran, so it ends LOST.
    assertThat(finished(runner.submit(Turn.of("say hello"))).state())
        .isEqualTo(ExecutionState.LOST);

    Files.delete(transcript);
    assertThat(finished(runner.submit(Turn.of("say hello again"))).state())
        .as("the runner still runs prompts")
        .isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(runner.busy()).isFalse();
  }

  @Test
  void twoCodexPromptsAreOneConversationThroughTheProxy() {
    start(new CodexAdapter(), ProviderProfile.Api.OPENAI, PromptRunner.Limits.defaults());

    ExecutionView first = finished(runner.submit(Turn.of("hello, my name is Dharma")));
    ExecutionView second = finished(runner.submit(Turn.of("what is my name?")));

    assertThat(first.state()).as(log()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(second.state()).as(log()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(log()).contains("Hello from the fake provider.\n");
    assertThat(provider.answersAsked().getLast().body()).contains("my name is Dharma");
    assertThat(provider.received())
        .allSatisfy(r -> assertThat(r.headers()).containsEntry("authorization", "Bearer " + TOKEN));
    assertThat(Conversation.read(state).id()).isPresent();
    // Codex counts the thread's tokens: the second turn's own are the difference.
    List<tools.jackson.databind.JsonNode> usages =
        transcript.after(0, 10_000).stream()
            .filter(e -> e.path("type").asString("").equals("usage"))
            .toList();
    assertThat(usages)
        .extracting(e -> e.path("inputTokens").asLong(), e -> e.path("totalInputTokens").asLong())
        .containsExactly(tuple(12L, 12L), tuple(12L, 24L));
  }

  @Test
  void codexsWarningsAreWarningsAndItsReconnectsRetriesNotErrors() {
    start(new CodexAdapter(), ProviderProfile.Api.OPENAI, PromptRunner.Limits.defaults());
    // Codex retries a failed request four times unseen, then reconnects, which it reports.
    provider.failsAnswers(6, 502);

    ExecutionView run =
        finished(runner.submit(new Turn("say hello", Optional.of("gpt-5-codex"), "default")));

    assertThat(run.state()).as(log()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(log())
        .contains("[model API error 502 (unexpected status 502 Bad Gateway")
        .contains("; retry 1 of 5]\n")
        .contains("Hello from the fake provider.\n")
        .doesNotContain("Model metadata");
    // Its missing model metadata and what it says on standard error are warnings; nothing is an
    // error.
    assertThat(transcript())
        .contains("\"type\":\"retry\"", "\"type\":\"warning\"", "Model metadata for")
        .contains("Reading additional input from stdin")
        .doesNotContain("\"type\":\"error\"");
  }

  @Test
  void codexRunsTheToolTheModelAsksForInTheWorkspace() {
    start(new CodexAdapter(), ProviderProfile.Api.OPENAI, PromptRunner.Limits.defaults());

    // A named model: for its own default Codex offers a code mode rather than its shell tool.
    ExecutionView run =
        finished(
            runner.submit(
                new Turn("please touch the marker", Optional.of("gpt-5-codex"), "default")));

    assertThat(run.state()).as(log()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(state.resolve("home/workspace/marker.txt")).as(log()).exists();
    assertThat(transcript())
        .contains("\"type\":\"tool-call\"", "touch marker.txt", "\"type\":\"tool-result\"");
    assertThat(log()).endsWith("Done.\n");
  }

  private void start(AgentAdapter adapter, ProviderProfile.Api api, PromptRunner.Limits limits) {
    ProviderProfile profile =
        new ProviderProfile(
            "fake", provider.url(), TOKEN, Optional.of(provider.caCertificate()), api, List.of());
    proxy = CredentialProxy.start(profile, new CredentialProxy.Listen.Loopback());
    output = OutputLog.open(state.resolve("output"), 1L << 30, Clock.systemUTC());
    transcript = TranscriptLog.open(state, Clock.systemUTC());
    plan =
        Sandbox.none()
            .plan(
                "agent-test", List.of("true"), state, new ResourceLimits(256, 1L << 30, 1L << 30));
    runner = runner(adapter, limits);
  }

  private PromptRunner runner(AgentAdapter adapter, PromptRunner.Limits limits) {
    AgentPaths paths = AgentPaths.under(state);
    return new PromptRunner(
        new PromptRunner.Setup(
            new SessionId("a".repeat(32)),
            adapter,
            cli(adapter),
            paths,
            paths,
            plan,
            new ProviderEndpoint(proxy.loopbackUrl().toString(), ProviderEndpoint.PLACEHOLDER),
            List.of(TOKEN),
            output,
            output.nextOffset(),
            transcript,
            Clock.systemUTC(),
            limits));
  }

  private ExecutionView finished(ExecutionView submitted) {
    await().atMost(RUN).until(() -> runner.get(submitted.id()).orElseThrow().state().isFinished());
    return runner.get(submitted.id()).orElseThrow();
  }

  private String log() {
    return new String(output.read(0, 1 << 20).bytes(), StandardCharsets.UTF_8);
  }

  /** The transcript as a reader from its beginning gets it, one entry per line. */
  private String transcript() {
    StringBuilder entries = new StringBuilder();
    transcript.after(0, 10_000).forEach(entry -> entries.append(entry).append('\n'));
    return entries.toString();
  }

  /** The pinned CLI, from the repository's tools/agent-clis; a missing one fails the test. */
  static Path cli(AgentAdapter adapter) {
    String name = adapter instanceof CodexAdapter ? "codex" : "claude";
    Path bin =
        Path.of("..", "tools", "agent-clis", "node_modules", ".bin", name)
            .toAbsolutePath()
            .normalize();
    assertThat(bin)
        .as("the %s CLI; bin/ensure-test-tools installs it (npm ci in tools/agent-clis)", name)
        .isExecutable();
    return bin;
  }
}
