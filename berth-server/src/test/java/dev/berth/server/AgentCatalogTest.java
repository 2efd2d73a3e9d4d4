package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.AgentModel;
import dev.berth.core.session.WorkloadType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentCatalogTest {

  private static final WorkloadType CLAUDE = new WorkloadType("claude-code");
  private static final WorkloadType CODEX = new WorkloadType("codex");

  @TempDir Path dir;
  private Path claude;

  @BeforeEach
  void cli() throws Exception {
    claude = dir.resolve("claude");
    Files.writeString(claude, "#!/bin/sh\n");
    Files.setPosixFilePermissions(claude, PosixFilePermissions.fromString("rwx------"));
  }

  private AgentCatalog fromEnv(Map<String, String> env) {
    return AgentCatalog.load(Map.of("claude-code", claude), Optional.empty(), env);
  }

  @Test
  void aTypeWithItsCliAndProviderRunsAndItsPlatformDefaultIsTheProvidersModel() {
    AgentCatalog catalog =
        fromEnv(
            Map.of(
                "BERTH_PROVIDER_CLAUDE_CODE_URL", "https://models.example/anthropic",
                "BERTH_PROVIDER_CLAUDE_CODE_TOKEN", "sk-secret",
                "BERTH_PROVIDER_CLAUDE_CODE_MODEL", "big-model",
                "BERTH_PROVIDER_CLAUDE_CODE_MODELS", "[\"big-model\",\"small-model\"]"));

    assertThat(catalog.unavailable(CLAUDE)).isEmpty();
    assertThat(catalog.configuredAgents())
        .singleElement()
        .satisfies(
            offer -> {
              assertThat(offer.type()).isEqualTo(CLAUDE);
              assertThat(offer.defaultModel()).isEqualTo("big-model");
              assertThat(offer.models()).containsExactly("big-model", "small-model");
            });
    Map<String, Object> launch =
        catalog.launch(CLAUDE, Optional.of(AgentModel.PLATFORM_DEFAULT)).orElseThrow();
    assertThat(launch).containsEntry("model", "big-model").containsEntry("cli", claude.toString());
    assertThat(catalog.launch(CLAUDE, Optional.of(new AgentModel("small-model"))).orElseThrow())
        .containsEntry("model", "small-model");
    assertThat(catalog.launch(WorkloadType.SHELL, Optional.empty())).isEmpty();
  }

  @Test
  void aTypeMissingItsCliOrProviderIsUnavailableAndTheReasonNamesTheWayOut() {
    AgentCatalog catalog = AgentCatalog.load(Map.of(), Optional.empty(), Map.of("PATH", ""));

    assertThat(catalog.unavailable(CODEX).orElseThrow())
        .contains("codex is not on PATH", "--agent-cli codex=PATH")
        .contains("BERTH_PROVIDER_CODEX_URL", "--providers FILE");
    assertThat(catalog.configuredAgents()).isEmpty();
    assertThat(catalog.unavailable(WorkloadType.SHELL)).isEmpty();
  }

  @Test
  void aProvidersFileGivesTheProviderWithItsTokenFromAFileAndNeverPrintsTheToken()
      throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "sk-from-a-file\n");
    Path file = dir.resolve("providers.json");
    Files.writeString(
        file,
        "{\"claude-code\":{\"url\":\"https://api.example\",\"tokenFile\":\"" + token + "\"}}");

    AgentCatalog catalog =
        AgentCatalog.load(Map.of("claude-code", claude), Optional.of(file), Map.of());

    Map<String, Object> launch = catalog.launch(CLAUDE, Optional.empty()).orElseThrow();
    assertThat(launch.get("provider").toString()).contains("sk-from-a-file");
    assertThat(launch).containsEntry("model", "platform-default");
    assertThat(
            new AgentCatalog.Provider(
                    java.net.URI.create("https://x"),
                    "sk-z",
                    Optional.empty(),
                    "anthropic",
                    "x-api-key")
                .toString())
        .doesNotContain("sk-z");
  }

  @Test
  void theTokensHeaderIsSentToTheNodeOnlyWhereItIsNotTheApisDefault() throws Exception {
    Map<String, String> anthropic =
        Map.of(
            "BERTH_PROVIDER_CLAUDE_CODE_URL", "https://api.anthropic.example",
            "BERTH_PROVIDER_CLAUDE_CODE_TOKEN", "sk-a");
    // The node takes x-api-key for Anthropic's API and Bearer for OpenAI's when none is named; a
    // node of an earlier release, which knows no authHeader, is sent none in those cases.
    assertThat(provider(fromEnv(anthropic), CLAUDE)).doesNotContainKey("authHeader");

    Map<String, String> gateway = new java.util.HashMap<>(anthropic);
    gateway.put("BERTH_PROVIDER_CLAUDE_CODE_AUTH_HEADER", "authorization");
    assertThat(provider(fromEnv(gateway), CLAUDE)).containsEntry("authHeader", "authorization");

    Path file = dir.resolve("providers.json");
    Files.writeString(
        file,
        "{\"codex\":{\"url\":\"https://api.openai.example\",\"api\":\"openai\"},"
            + "\"minimax-code\":{\"url\":\"https://gw.example\"}}");
    Map<String, String> tokens =
        Map.of("BERTH_PROVIDER_CODEX_TOKEN", "sk-o", "BERTH_PROVIDER_MINIMAX_CODE_TOKEN", "sk-m");
    Map<String, Path> clis = Map.of("codex", claude, "minimax-code", claude);
    AgentCatalog fromFile = AgentCatalog.load(clis, Optional.of(file), tokens);
    assertThat(provider(fromFile, CODEX)).doesNotContainKey("authHeader");
    assertThat(provider(fromFile, new WorkloadType("minimax-code")))
        .as("MiniMax, a gateway on Anthropic's API, takes a Bearer token")
        .containsEntry("authHeader", "authorization");
    Files.writeString(
        file,
        "{\"codex\":{\"url\":\"https://azure.example\",\"api\":\"openai\","
            + "\"authHeader\":\"api-key\"}}");
    assertThat(provider(AgentCatalog.load(clis, Optional.of(file), tokens), CODEX))
        .containsEntry("authHeader", "api-key");

    gateway.put("BERTH_PROVIDER_CLAUDE_CODE_AUTH_HEADER", "Bearer: x");
    assertThatThrownBy(() -> fromEnv(gateway))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("claude-code: authHeader must be a header name");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> provider(AgentCatalog catalog, WorkloadType type) {
    return (Map<String, Object>)
        catalog.launch(type, Optional.empty()).orElseThrow().get("provider");
  }

  @Test
  void aConfigurationBreakingARuleStopsTheStartNamingTheSettingAndTheRule() throws Exception {
    Path file = dir.resolve("providers.json");
    Files.writeString(file, "{\"claude-code\":{\"url\":\"https://a\",\"token\":\"inline\"}}");
    assertThatThrownBy(
            () -> AgentCatalog.load(Map.of("claude-code", claude), Optional.of(file), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("claude-code.token is not a setting");

    assertThatThrownBy(
            () ->
                fromEnv(
                    Map.of(
                        "BERTH_PROVIDER_CLAUDE_CODE_URL", "http://plain.example",
                        "BERTH_PROVIDER_CLAUDE_CODE_TOKEN", "t")))
        .hasMessageContaining("must be https");
    assertThatThrownBy(
            () -> fromEnv(Map.of("BERTH_PROVIDER_CLAUDE_CODE_MODEL", "platform-default")))
        .hasMessageContaining("reserved");
    assertThatThrownBy(() -> fromEnv(Map.of("BERTH_PROVIDER_CLAUDE_CODE_MODELS", "[\"a\",\"a\"]")))
        .hasMessageContaining("listed twice");
    assertThatThrownBy(() -> AgentCatalog.load(Map.of("shell", claude), Optional.empty(), Map.of()))
        .hasMessageContaining("not an agent type");
  }

  @Test
  void aTypeGetsASharedDirectoryOnlyWhenItsConfigurationSaysSoAndTheNodeHearsOfItOnlyThen()
      throws Exception {
    Map<String, String> env =
        Map.of(
            "BERTH_PROVIDER_CLAUDE_CODE_URL", "https://api.anthropic.example",
            "BERTH_PROVIDER_CLAUDE_CODE_TOKEN", "sk-a");
    // A node of an earlier release refuses fields it does not know: off is not sent at all.
    assertThat(fromEnv(env).launch(CLAUDE, Optional.empty()).orElseThrow())
        .doesNotContainKey("shared");

    Path file = dir.resolve("providers.json");
    Files.writeString(file, "{\"claude-code\":{\"shared\":true}}");
    assertThat(
            AgentCatalog.load(Map.of("claude-code", claude), Optional.of(file), env)
                .launch(CLAUDE, Optional.empty())
                .orElseThrow())
        .containsEntry("shared", true);

    Map<String, String> off = new java.util.HashMap<>(env);
    off.put("BERTH_PROVIDER_CLAUDE_CODE_SHARED", "false");
    assertThat(
            AgentCatalog.load(Map.of("claude-code", claude), Optional.of(file), off)
                .launch(CLAUDE, Optional.empty())
                .orElseThrow())
        .as("the variable wins over the file, as for every setting")
        .doesNotContainKey("shared");
    Map<String, String> on = new java.util.HashMap<>(env);
    on.put("BERTH_PROVIDER_CLAUDE_CODE_SHARED", "TRUE");
    assertThat(fromEnv(on).launch(CLAUDE, Optional.empty()).orElseThrow())
        .containsEntry("shared", true);

    on.put("BERTH_PROVIDER_CLAUDE_CODE_SHARED", "yes");
    assertThatThrownBy(() -> fromEnv(on))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("BERTH_PROVIDER_CLAUDE_CODE_SHARED must be true or false");
    Files.writeString(file, "{\"claude-code\":{\"shared\":\"true\"}}");
    assertThatThrownBy(
            () -> AgentCatalog.load(Map.of("claude-code", claude), Optional.of(file), env))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("claude-code.shared must be true or false");
  }
}
