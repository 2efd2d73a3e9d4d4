package dev.berth.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.agent.agentcli.AgentPaths;
import dev.berth.agent.agentcli.ClaudeCodeAdapter;
import dev.berth.agent.agentcli.Conversation;
import dev.berth.agent.agentcli.FakeModelProvider;
import dev.berth.agent.agentcli.ProviderEndpoint;
import dev.berth.agent.agentcli.Turn;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Claude Code CLI, through the proxy, asked by the fake provider's script to write the
 * token across two text deltas: nothing it prints or keeps in its home (its conversation files,
 * which a snapshot archives and which it sends back in later turns) holds the token.
 */
class RealClaudeKeepsNoSplitTokenTest {

  private static final String TOKEN = "sk-real-cli-split-token-5555555555";

  @TempDir Path dir;
  private FakeModelProvider provider;
  private CredentialProxy proxy;

  @AfterEach
  void stop() {
    if (proxy != null) {
      proxy.close();
    }
    if (provider != null) {
      provider.close();
    }
  }

  @Test
  void aTokenSplitAcrossTwoDeltasReachesNeitherTheCliNorItsFiles() throws Exception {
    Path cli =
        Path.of("..", "tools", "agent-clis", "node_modules", ".bin", "claude")
            .toAbsolutePath()
            .normalize();
    assertThat(cli)
        .as("the claude CLI; bin/ensure-test-tools installs it (npm ci in tools/agent-clis)")
        .isExecutable();
    provider = FakeModelProvider.https(dir);
    provider.echoes(TOKEN);
    proxy =
        CredentialProxy.start(
            new ProviderProfile(
                "fake",
                provider.url(),
                TOKEN,
                Optional.of(provider.caCertificate()),
                ProviderProfile.Api.ANTHROPIC,
                List.of()),
            new CredentialProxy.Listen.Loopback());
    AgentPaths paths = AgentPaths.under(dir.resolve("state"));
    Files.createDirectories(paths.workspace());
    ProviderEndpoint endpoint =
        new ProviderEndpoint(proxy.loopbackUrl().toString(), ProviderEndpoint.PLACEHOLDER);
    ClaudeCodeAdapter claude = ClaudeCodeAdapter.claudeCode();
    ProcessBuilder builder =
        new ProcessBuilder(
                claude.argv(
                    cli,
                    Turn.of("please echo the token in two deltas"),
                    new Conversation(Optional.of(UUID.randomUUID().toString()), false),
                    endpoint,
                    Optional.empty()))
            .directory(paths.workspace().toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
    builder.environment().putAll(claude.environment(paths, endpoint));
    Process process = builder.start();
    String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(90, TimeUnit.SECONDS)).isTrue();

    assertThat(process.exitValue()).as(printed).isZero();
    assertThat(printed).contains("the token is [REDACTED] indeed").doesNotContain(TOKEN);
    List<Path> files;
    try (Stream<Path> walk = Files.walk(paths.home())) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    assertThat(files).anyMatch(f -> f.toString().endsWith(".jsonl"));
    for (Path file : files) {
      assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1))
          .as(file.toString())
          .doesNotContain(TOKEN)
          .doesNotContain(TOKEN.substring(0, TOKEN.length() / 2) + "\"");
    }
  }
}
