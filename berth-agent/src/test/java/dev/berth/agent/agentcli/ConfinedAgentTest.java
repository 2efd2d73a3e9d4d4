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
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent session as the host confines it: the real Claude Code CLI inside bubblewrap, on the
 * {@code proxy} network, where {@code 127.0.0.1:8091} is its credential proxy (a Unix socket
 * outside the sandbox, forwarded by socat) and nothing else is reachable; the fake provider
 * (loopback HTTPS, since no real one is reachable) is reached only through the proxy. Then the
 * attacks a prompt could make on the token, run as commands in the same confinement.
 */
class ConfinedAgentTest {

  private static final String TOKEN = "sk-confined-provider-token-77777777";
  private static final Duration RUN = Duration.ofSeconds(90);
  private static Sandbox host;

  @TempDir Path root;
  private FakeModelProvider provider;
  private CredentialProxy proxy;
  private OutputLog output;
  private LaunchPlan plan;
  private PromptRunner runner;
  private AgentPaths paths;
  private Path socket;

  @BeforeAll
  static void detect() {
    host = Sandbox.detect(Path.of("/sys/fs/cgroup"));
  }

  @BeforeEach
  void start() throws Exception {
    assertThat(host.isolation().sandbox())
        .as("bubblewrap must work here: " + host.isolation().weaknesses())
        .isEqualTo("bwrap");
    provider = FakeModelProvider.https(root);
    provider.echoes(TOKEN);
    Path state = root.resolve("state");
    paths = AgentPaths.under(state);
    Files.createDirectories(paths.workspace());
    Path proxyDir = Files.createDirectories(root.resolve("proxy"));
    socket = proxyDir.resolve("proxy.sock");
    proxy =
        CredentialProxy.start(
            new ProviderProfile(
                "fake",
                provider.url(),
                TOKEN,
                Optional.of(provider.caCertificate()),
                ProviderProfile.Api.ANTHROPIC,
                List.of()),
            new CredentialProxy.Listen.Unix(socket));
    Path clis =
        PromptRunnerWithRealClisTest.cli(ClaudeCodeAdapter.claudeCode()).getParent().getParent();
    plan =
        host.agentPlan(
            "agent-confined-" + ProcessHandle.current().pid(),
            List.of("true"),
            WritablePaths.of(paths.home())
                .withTmp(state.resolve("tmp"))
                .withTarget(paths.home(), AgentPaths.SANDBOX_HOME),
            new ResourceLimits(256, 1L << 30, 1L << 30),
            socket,
            List.of(new SandboxBind(clis.toRealPath(), Path.of("/opt/berth/agent-clis"), true)));
    output = OutputLog.open(state.resolve("output"), 1L << 30, Clock.systemUTC());
    runner =
        new PromptRunner(
            new PromptRunner.Setup(
                new SessionId("c".repeat(32)),
                ClaudeCodeAdapter.claudeCode(),
                Path.of("/opt/berth/agent-clis/.bin/claude"),
                paths,
                paths.inSandbox(),
                plan,
                endpoint(),
                List.of(TOKEN),
                output,
                0,
                TranscriptLog.open(state, Clock.systemUTC()),
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
  void theConfinedCliAnswersRunsItsToolInTheWorkspaceAndContinuesItsConversation() {
    assertThat(plan.isolation().network().mode()).isEqualTo("proxy");

    ExecutionView first = finished(runner.submit(Turn.of("hello, my name is Dharma")));
    ExecutionView second = finished(runner.submit(Turn.of("please touch the marker")));

    assertThat(first.state()).as(log()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(second.state()).as(log()).isEqualTo(ExecutionState.SUCCEEDED);
    assertThat(paths.workspace().resolve("marker.txt")).exists();
    assertThat(provider.answersAsked().getLast().body()).contains("my name is Dharma");
    assertThat(provider.received())
        .allSatisfy(r -> assertThat(r.headers()).containsEntry("x-api-key", TOKEN));
  }

  @Test
  void aPromptsCommandsReachTheProxyAndNothingElseAndFindNoToken() throws Exception {
    // The token only reversed in the script: its own command line must not be what is found.
    String reversed = new StringBuilder(TOKEN).reverse().toString();
    String script =
        String.join(
            "\n",
            "T=$(echo '" + reversed + "' | rev)",
            // grep reads the pattern from a descriptor, so that its own argv holds no token.
            "echo env=$(env | grep -c -F -f /dev/fd/3 3<<<\"$T\")",
            "echo placeholder=$ANTHROPIC_AUTH_TOKEN",
            "echo proc=$(cat /proc/*/environ /proc/*/cmdline 2>/dev/null | grep -a -c -F -f /dev/fd/3"
                + " 3<<<\"$T\")",
            "echo files=$(grep -rls -F -f /dev/fd/3 /home /tmp /run /var /etc /opt 3<<<\"$T\""
                + " 2>/dev/null | wc -l)",
            "echo processes=$(ls /proc | grep -c '^[0-9]')",
            "(exec 3<>/dev/tcp/127.0.0.1/"
                + NetworkMode.PROXY_PORT
                + ") 2>/dev/null && echo proxy=reached || echo proxy=refused",
            "(exec 3<>/dev/tcp/127.0.0.1/"
                + provider.url().getPort()
                + ") 2>/dev/null && echo provider=reached || echo provider=refused",
            "test -e " + socket + " && echo socket=seen || echo socket=hidden",
            "echo done");

    String seen = probe(script);

    assertThat(seen)
        .contains("env=0", "placeholder=" + ProviderEndpoint.PLACEHOLDER, "proc=0", "files=0")
        .contains("proxy=reached", "provider=refused", "socket=hidden", "done");
  }

  private String probe(String script) throws Exception {
    List<String> argv =
        new ArrayList<>(
            plan.wrap(List.of("/bin/bash", "-c", script), paths.inSandbox().workspace()));
    ProcessBuilder builder =
        new ProcessBuilder(argv)
            .directory(plan.spawnDirectory(paths.inSandbox().workspace()).toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().put("PATH", "/usr/bin:/bin");
    Map<String, String> env =
        ClaudeCodeAdapter.claudeCode().environment(paths.inSandbox(), endpoint());
    builder.environment().putAll(env);
    builder.environment().putAll(plan.environment());
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor();
    return out;
  }

  private static ProviderEndpoint endpoint() {
    return new ProviderEndpoint(
        "http://127.0.0.1:" + NetworkMode.PROXY_PORT, ProviderEndpoint.PLACEHOLDER);
  }

  private ExecutionView finished(ExecutionView submitted) {
    await().atMost(RUN).until(() -> runner.get(submitted.id()).orElseThrow().state().isFinished());
    return runner.get(submitted.id()).orElseThrow();
  }

  private String log() {
    return new String(output.read(0, 1 << 20).bytes(), StandardCharsets.UTF_8);
  }
}
