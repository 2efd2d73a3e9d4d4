package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.NetworkMode;
import dev.berth.agent.isolation.ResourceLimits;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.SandboxBind;
import dev.berth.agent.isolation.WritablePaths;
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
 * Codex's sub-agents (AC-J8) with the real Codex CLI confined as an agent session is, against the
 * fake provider: the main agent starts a sub-agent and answers at once; the sub-agent works on for
 * 3 seconds. Without Berth's hooks {@code codex exec} would end there and the sub-agent with it;
 * with them the run waits for it, and the main agent's follow-up turn reports what it found.
 */
class CodexSubAgentsTest {

  private static final String TOKEN = "sk-codex-subagents-provider-token-2718";
  private static final Duration RUN = Duration.ofSeconds(120);
  private static final Path CLIS = Path.of("/opt/berth/agent-cli/node_modules");

  @TempDir Path root;
  private FakeModelProvider provider;
  private CredentialProxy proxy;
  private OutputLog output;
  private LaunchPlan plan;
  private PromptRunner runner;
  private TranscriptLog transcript;

  @BeforeEach
  void start() throws Exception {
    Sandbox host = Sandbox.detect(Path.of("/sys/fs/cgroup"));
    assertThat(host.isolation().sandbox())
        .as("bubblewrap must work here: " + host.isolation().weaknesses())
        .isEqualTo("bwrap");
    provider = FakeModelProvider.https(root);
    Path state = root.resolve("state");
    AgentPaths paths = AgentPaths.under(state);
    Files.createDirectories(paths.workspace());
    Path socket = Files.createDirectories(root.resolve("proxy")).resolve("proxy.sock");
    proxy =
        CredentialProxy.start(
            new ProviderProfile(
                "fake",
                provider.url(),
                TOKEN,
                Optional.of(provider.caCertificate()),
                ProviderProfile.Api.OPENAI,
                List.of()),
            new CredentialProxy.Listen.Unix(socket));
    Path modules = PromptRunnerWithRealClisTest.cli(new CodexAdapter()).getParent().getParent();
    plan =
        host.agentPlan(
            "agent-subagents-" + ProcessHandle.current().pid(),
            List.of("true"),
            WritablePaths.of(paths.home())
                .withTmp(state.resolve("tmp"))
                .withTarget(paths.home(), AgentPaths.SANDBOX_HOME),
            new ResourceLimits(256, 1L << 30, 1L << 30),
            socket,
            List.of(new SandboxBind(modules.toRealPath(), CLIS, true)));
    output = OutputLog.open(state.resolve("output"), 1L << 30, Clock.systemUTC());
    transcript = TranscriptLog.open(state, Clock.systemUTC());
    runner =
        new PromptRunner(
            new PromptRunner.Setup(
                new SessionId("d".repeat(32)),
                new CodexAdapter(),
                CLIS.resolve(".bin/codex"),
                paths,
                paths.inSandbox(),
                plan,
                new ProviderEndpoint(
                    "http://127.0.0.1:" + NetworkMode.PROXY_PORT, ProviderEndpoint.PLACEHOLDER),
                List.of(TOKEN),
                output,
                0,
                transcript,
                Clock.systemUTC(),
                PromptRunner.Limits.defaults()));
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
  void aTurnThatStartsASubAgentWaitsForItAndItsFollowUpReportsTheSubAgentsResult() {
    ExecutionView submitted = runner.submit(Turn.of("please start a sub-agent to count sheep"));
    await().atMost(RUN).until(() -> runner.get(submitted.id()).orElseThrow().state().isFinished());
    ExecutionView run = runner.get(submitted.id()).orElseThrow();

    assertThat(run.state()).as(log()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(log())
        .as("the main agent's answer, then its follow-up once the sub-agent finished")
        .contains("Done.\n")
        .endsWith("The sub-agent reported: " + FakeModelProvider.SUB_AGENT_RESULT + ".\n");
    List<String> asked = provider.answersAsked().stream().map(r -> r.body()).toList();
    assertThat(asked)
        .as("the sub-agent got its task and answered its parent")
        .anySatisfy(body -> assertThat(body).contains(FakeModelProvider.SUB_AGENT_TASK))
        .last()
        .satisfies(
            body ->
                assertThat(body)
                    .contains("[berth] Your sub-agents have finished. Report their results.")
                    .contains("FINAL_ANSWER", FakeModelProvider.SUB_AGENT_RESULT));
    assertThat(transcript()).doesNotContain("dangerously-bypass-hook-trust");
  }

  /**
   * Berth runs Codex with {@code --dangerously-bypass-hook-trust}, which trusts every hook Codex
   * loads. A hostile repository in the workspace brings hooks in its {@code .codex/} layer
   * (hooks.json and config.toml), and an earlier command it was let run planted more in the home's
   * {@code config.toml}: [hooks] tables and a trust entry for the workspace, which would make Codex
   * load the project layer. None of them may run; Berth's own hooks still do (the sub-agent's
   * result is reported only through its Stop hook).
   */
  @Test
  void onlyBerthsOwnHooksRunNeitherAHostileWorkspacesNorOnesPlantedInTheHome() throws Exception {
    Path workspace = AgentPaths.under(root.resolve("state")).workspace();
    Path home = workspace.getParent();
    Files.createDirectories(workspace.resolve(".git"));
    Path project = Files.createDirectories(workspace.resolve(".codex"));
    Files.writeString(project.resolve("hooks.json"), hooksJson("hostile-project-json"));
    Files.writeString(project.resolve("config.toml"), hooksToml("hostile-project-toml"));
    Path codexHome = Files.createDirectories(home.resolve(CodexAdapter.CODEX_HOME));
    Files.writeString(
        codexHome.resolve("config.toml"),
        "[projects.\"/home/berth/workspace\"]\ntrust_level = \"trusted\"\n\n"
            + hooksToml("hostile-user-toml"));

    ExecutionView submitted = runner.submit(Turn.of("please start a sub-agent to count sheep"));
    await().atMost(RUN).until(() -> runner.get(submitted.id()).orElseThrow().state().isFinished());

    assertThat(runner.get(submitted.id()).orElseThrow().state())
        .as(log())
        .isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(log())
        .as("Berth's Stop hook held the turn for the sub-agent")
        .endsWith("The sub-agent reported: " + FakeModelProvider.SUB_AGENT_RESULT + ".\n");
    assertThat(home.resolve(CodexAdapter.CODEX_HOME).resolve("berth-subagents/started"))
        .as("Berth's hook ran")
        .isDirectory();
    assertThat(home.resolve("hostile-project-json")).as(log()).doesNotExist();
    assertThat(home.resolve("hostile-project-toml")).as(log()).doesNotExist();
    assertThat(home.resolve("hostile-user-toml")).as(log()).doesNotExist();
  }

  /** A hooks.json whose hooks, at every event Berth's use, touch {@code name} in the home. */
  private static String hooksJson(String name) {
    StringBuilder events = new StringBuilder();
    for (String event : List.of("SessionStart", "PostToolUse", "SubagentStop", "Stop")) {
      events
          .append(events.isEmpty() ? "" : ",")
          .append("\"")
          .append(event)
          .append("\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"touch")
          .append(" /home/berth/")
          .append(name)
          .append("\"}]}]");
    }
    return "{\"hooks\": {" + events + "}}\n";
  }

  /** The same as [hooks] tables of a config.toml. */
  private static String hooksToml(String name) {
    StringBuilder toml = new StringBuilder();
    for (String event : List.of("SessionStart", "PostToolUse", "SubagentStop", "Stop")) {
      toml.append("[[hooks.")
          .append(event)
          .append("]]\n[[hooks.")
          .append(event)
          .append(".hooks]]\ntype = \"command\"\ncommand = \"touch /home/berth/")
          .append(name)
          .append("\"\n\n");
    }
    return toml.toString();
  }

  @Test
  void aTurnWithoutSubAgentsEndsAsItsAgentAnswers() {
    ExecutionView submitted = runner.submit(Turn.of("say hello"));
    await().atMost(RUN).until(() -> runner.get(submitted.id()).orElseThrow().state().isFinished());

    assertThat(runner.get(submitted.id()).orElseThrow().state())
        .as(log())
        .isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(log()).endsWith("Hello from the fake provider.\n");
    assertThat(provider.answersAsked()).hasSize(1);
  }

  private String log() {
    return new String(output.read(0, 1 << 20).bytes(), StandardCharsets.UTF_8);
  }

  private String transcript() {
    StringBuilder entries = new StringBuilder();
    transcript.after(0, 10_000).forEach(entry -> entries.append(entry).append('\n'));
    return entries.toString();
  }
}
