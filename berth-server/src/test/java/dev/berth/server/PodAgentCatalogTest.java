package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.AgentModel;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import dev.berth.kubernetes.runtime.PodAgent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agent types on {@code --runtime kubernetes}: CLIs are paths in the agent image, and each
 * provider's token is a Secret's key the control plane names but never reads into its
 * configuration.
 */
class PodAgentCatalogTest {
  private static final WorkloadType CLAUDE = new WorkloadType("claude-code");
  private static final SessionId SESSION = new SessionId("12".repeat(16));

  @TempDir Path dir;

  @Test
  void aTypeWithAUrlAndATokenSecretRunsTheImagesCliAgainstThatSecret() {
    AgentCatalog catalog =
        AgentCatalog.loadForPods(
            Map.of(),
            Optional.empty(),
            Map.of(
                "BERTH_PROVIDER_CLAUDE_CODE_URL", "https://api.anthropic.com",
                "BERTH_PROVIDER_CLAUDE_CODE_TOKEN_SECRET", "berth-provider-claude-code/token",
                "BERTH_PROVIDER_CLAUDE_CODE_MODEL", "big-model"));

    assertThat(catalog.unavailable(CLAUDE)).isEmpty();
    assertThat(catalog.unavailable(new WorkloadType("codex"))).isPresent();
    PodAgent agent = PodAgents.of(catalog, spec(CLAUDE)).orElseThrow();
    assertThat(agent.cli()).isEqualTo("/opt/berth/agent-clis/node_modules/.bin/claude");
    assertThat(agent.model()).isEqualTo("big-model");
    assertThat(agent.provider().baseUrl()).isEqualTo("https://api.anthropic.com");
    assertThat(agent.provider().api()).isEqualTo("anthropic");
    assertThat(agent.provider().authHeader()).contains("x-api-key");
    assertThat(agent.provider().token())
        .isEqualTo(new PodAgent.SecretRef("berth-provider-claude-code", "token"));
    // The node's launch (with a token) is never made for a pod's type.
    assertThat(catalog.launch(CLAUDE, Optional.empty())).isEmpty();
    assertThat(PodAgents.of(catalog, spec(WorkloadType.SHELL))).isEmpty();
  }

  @Test
  void theProvidersFileNamesTheSecretAndAnExplicitCliIsAPathInTheImage() throws Exception {
    Path file = dir.resolve("providers.json");
    Files.writeString(
        file,
        "{\"codex\":{\"url\":\"https://api.openai.com/v1\",\"tokenSecret\":\"openai/key\","
            + "\"caFile\":\"/etc/berth/ca.pem\"}}");

    AgentCatalog catalog =
        AgentCatalog.loadForPods(
            Map.of("codex", Path.of("/usr/local/bin/codex")), Optional.of(file), Map.of());

    PodAgent agent = PodAgents.of(catalog, spec(new WorkloadType("codex"))).orElseThrow();
    assertThat(agent.cli()).isEqualTo("/usr/local/bin/codex");
    assertThat(agent.model()).isEqualTo("platform-default");
    assertThat(agent.provider().api()).isEqualTo("openai");
    assertThat(agent.provider().caFile()).contains("/etc/berth/ca.pem");
    assertThat(agent.provider().token()).isEqualTo(new PodAgent.SecretRef("openai", "key"));
  }

  @Test
  void aProvidersEgressCidrsComeFromTheFileOrTheVariableWhichWinsAndReachThePod() throws Exception {
    Path file = dir.resolve("providers.json");
    Files.writeString(
        file,
        "{\"claude-code\":{\"url\":\"https://api.anthropic.com\",\"tokenSecret\":\"a/token\","
            + "\"egressCidrs\":[\"160.79.104.0/23\",\"2607:6bc0::/48\"]}}");

    AgentCatalog fromFile = AgentCatalog.loadForPods(Map.of(), Optional.of(file), Map.of());
    assertThat(PodAgents.of(fromFile, spec(CLAUDE)).orElseThrow().provider().egressCidrs())
        .containsExactly("160.79.104.0/23", "2607:6bc0::/48");

    AgentCatalog fromVariable =
        AgentCatalog.loadForPods(
            Map.of(),
            Optional.of(file),
            Map.of("BERTH_PROVIDER_CLAUDE_CODE_EGRESS_CIDRS", "10.9.0.0/16, 10.8.0.1/32"));
    assertThat(PodAgents.of(fromVariable, spec(CLAUDE)).orElseThrow().provider().egressCidrs())
        .containsExactly("10.9.0.0/16", "10.8.0.1/32");

    AgentCatalog none =
        AgentCatalog.loadForPods(
            Map.of(),
            Optional.empty(),
            Map.of(
                "BERTH_PROVIDER_CLAUDE_CODE_URL", "https://api.anthropic.com",
                "BERTH_PROVIDER_CLAUDE_CODE_TOKEN_SECRET", "a/token"));
    assertThat(PodAgents.of(none, spec(CLAUDE)).orElseThrow().provider().egressCidrs()).isEmpty();
  }

  @Test
  void anEgressCidrThatIsNoCidrStopsTheServerAtStartNamingTheType() throws Exception {
    Path file = dir.resolve("providers.json");
    Files.writeString(
        file,
        "{\"claude-code\":{\"url\":\"https://api.anthropic.com\",\"tokenSecret\":\"a/token\","
            + "\"egressCidrs\":\"160.79.104.0/23\"}}");
    assertThatThrownBy(() -> AgentCatalog.loadForPods(Map.of(), Optional.of(file), Map.of()))
        .hasMessageContaining("claude-code")
        .hasMessageContaining("egressCidrs must be a JSON array");
    assertThatThrownBy(
            () ->
                AgentCatalog.loadForPods(
                    Map.of(),
                    Optional.empty(),
                    Map.of(
                        "BERTH_PROVIDER_CLAUDE_CODE_URL", "https://api.anthropic.com",
                        "BERTH_PROVIDER_CLAUDE_CODE_TOKEN_SECRET", "a/token",
                        "BERTH_PROVIDER_CLAUDE_CODE_EGRESS_CIDRS", "api.anthropic.com")))
        .hasMessageContaining("provider of claude-code")
        .hasMessageContaining("\"api.anthropic.com\"");
  }

  @Test
  void aTokenOrTokenFileWithKubernetesIsRefusedSinceTheControlPlaneNeedNotHoldIt()
      throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "sk-secret\n");
    assertThatThrownBy(
            () ->
                AgentCatalog.loadForPods(
                    Map.of(),
                    Optional.empty(),
                    Map.of(
                        "BERTH_PROVIDER_CLAUDE_CODE_URL",
                        "https://api.example",
                        "BERTH_PROVIDER_CLAUDE_CODE_TOKEN_FILE",
                        token.toString())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("with --runtime kubernetes the control plane does not hold")
        .hasMessageContaining("BERTH_PROVIDER_CLAUDE_CODE_TOKEN_SECRET=NAME/KEY")
        .hasMessageNotContaining("sk-secret");
  }

  @Test
  void aSecretReferenceOnTheLocalRuntimeOrAMalformedOneIsRefused() {
    assertThatThrownBy(
            () ->
                AgentCatalog.load(
                    Map.of(),
                    Optional.empty(),
                    Map.of(
                        "PATH", "",
                        "BERTH_PROVIDER_CLAUDE_CODE_URL", "https://api.example",
                        "BERTH_PROVIDER_CLAUDE_CODE_TOKEN_SECRET", "s/token")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only --runtime kubernetes uses");
    assertThatThrownBy(
            () ->
                AgentCatalog.loadForPods(
                    Map.of(),
                    Optional.empty(),
                    Map.of(
                        "BERTH_PROVIDER_CLAUDE_CODE_URL", "https://api.example",
                        "BERTH_PROVIDER_CLAUDE_CODE_TOKEN_SECRET", "no-key")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("provider of claude-code: a Secret reference is written name/key");
  }

  private static RuntimeSpec spec(WorkloadType type) {
    return new RuntimeSpec(
        RuntimeRef.planned("kubernetes", SESSION, 1),
        type,
        Optional.of(AgentModel.PLATFORM_DEFAULT),
        List.of(),
        new OwnershipLabels("inst", SESSION, 1),
        false);
  }
}
