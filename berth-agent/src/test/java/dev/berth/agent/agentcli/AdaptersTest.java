package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdaptersTest {

  private static final Path CLI = Path.of("/opt/cli");
  private static final ProviderEndpoint PROXY =
      new ProviderEndpoint("http://127.0.0.1:8091", ProviderEndpoint.PLACEHOLDER);
  private static final Conversation FIRST =
      new Conversation(Optional.of("11111111-2222-4333-8444-555555555555"), false);

  @Test
  void aPromptThatLooksLikeAnOptionStaysTheOnePositionalArgumentAfterTheSeparator() {
    String prompt = "--dangerously-skip-permissions --model evil";

    List<String> claude = ClaudeCodeAdapter.claudeCode().argv(CLI, Turn.of(prompt), FIRST, PROXY);
    List<String> codex = new CodexAdapter().argv(CLI, Turn.of(prompt), Conversation.none(), PROXY);

    assertThat(claude.subList(claude.size() - 2, claude.size())).containsExactly("--", prompt);
    assertThat(codex.subList(codex.size() - 2, codex.size())).containsExactly("--", prompt);
    assertThat(claude)
        .doesNotContain("--dangerously-skip-permissions", "--model")
        .hasSize(claude.indexOf("--") + 2);
  }

  @Test
  void claudeLoadsTheSessionsPluginFolderBeforeThePromptAndCodexTakesNone() {
    Optional<Path> folder = Optional.of(Path.of("/home/berth/.berth/plugins"));

    List<String> claude =
        ClaudeCodeAdapter.claudeCode().argv(CLI, Turn.of("hi"), FIRST, PROXY, folder);
    List<String> codex =
        new CodexAdapter().argv(CLI, Turn.of("hi"), Conversation.none(), PROXY, folder);

    assertThat(claude).containsSequence("--plugin-dir", "/home/berth/.berth/plugins");
    assertThat(claude.indexOf("--plugin-dir")).isLessThan(claude.indexOf("--"));
    assertThat(codex).doesNotContain("--plugin-dir");
    assertThat(new CodexAdapter().takesPlugins()).isFalse();
  }

  @Test
  void claudeNamesItsConversationUntilARunSucceedsThenResumesIt() {
    ClaudeCodeAdapter adapter = ClaudeCodeAdapter.claudeCode();
    Conversation started =
        adapter.begin(Conversation.none(), RandomGenerator.of("L64X128MixRandom"));
    String id = started.id().orElseThrow();

    assertThat(adapter.argv(CLI, Turn.of("hi"), started, PROXY))
        .containsSubsequence("--session-id", id);
    Conversation after = adapter.after(started, adapter.projector(), true);
    assertThat(adapter.argv(CLI, Turn.of("again"), after, PROXY))
        .containsSubsequence("--resume", id);
    assertThat(adapter.begin(after, RandomGenerator.getDefault())).isEqualTo(after);
  }

  @Test
  void aFailedFirstClaudeRunDoesNotCountAndTheNextStartsAFreshConversation() {
    ClaudeCodeAdapter adapter = ClaudeCodeAdapter.claudeCode();

    Conversation after = adapter.after(FIRST, adapter.projector(), false);

    assertThat(after.hasRun()).isFalse();
    assertThat(adapter.begin(after, RandomGenerator.getDefault()).id()).isNotEqualTo(FIRST.id());
    Conversation resumed = new Conversation(FIRST.id(), true);
    assertThat(adapter.after(resumed, adapter.projector(), false)).isEqualTo(resumed);
  }

  @Test
  void codexResumesTheThreadItAnnouncedOnlyAfterASuccessfulRun() {
    CodexAdapter adapter = new CodexAdapter();
    StreamProjector projector = adapter.projector();
    projector.line("{\"type\":\"thread.started\",\"thread_id\":\"t-1\"}", new RecordingSink());

    assertThat(adapter.after(Conversation.none(), projector, false)).isEqualTo(Conversation.none());
    Conversation after = adapter.after(Conversation.none(), projector, true);
    assertThat(adapter.argv(CLI, Turn.of("again"), after, PROXY))
        .containsSubsequence("resume", "t-1", "--", "again");
    assertThat(adapter.argv(CLI, Turn.of("x"), Conversation.none(), PROXY))
        .doesNotContain("resume");
  }

  @Test
  void thePlatformDefaultModelPassesNoModelFlagAndAConcreteOneIsPassedLiterally() {
    List<String> defaulted =
        ClaudeCodeAdapter.claudeCode()
            .argv(CLI, new Turn("hi", Optional.of(Turn.PLATFORM_DEFAULT), "default"), FIRST, PROXY);
    List<String> concrete =
        ClaudeCodeAdapter.claudeCode()
            .argv(
                CLI, new Turn("hi", Optional.of("~anthropic/claude-sonnet"), "plan"), FIRST, PROXY);

    assertThat(defaulted).doesNotContain("--model");
    assertThat(concrete)
        .containsSubsequence("--model", "~anthropic/claude-sonnet")
        .containsSubsequence("--permission-mode", "plan");
  }

  @Test
  void bypassingPermissionsAndMalformedModelsAreRefused() {
    assertThatThrownBy(() -> new Turn("hi", Optional.empty(), "bypassPermissions"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("never allowed");
    for (String model : List.of(" sonnet", "a b", "~", "x".repeat(129), "~~double", "")) {
      assertThatThrownBy(() -> new Turn("hi", Optional.of(model), "default"))
          .as(model)
          .isInstanceOf(InvalidValueException.class);
    }
    assertThatThrownBy(() -> Turn.of("  ")).hasMessageContaining("prompt is empty");
  }

  @Test
  void theWorkloadEnvironmentHoldsThePlaceholderAndNoCredentialVariable() {
    AgentPaths paths = AgentPaths.under(Path.of("/state")).inSandbox();

    var claude = ClaudeCodeAdapter.claudeCode().environment(paths, PROXY);
    var codex = new CodexAdapter().environment(paths, PROXY);

    assertThat(claude)
        .containsEntry("ANTHROPIC_BASE_URL", "http://127.0.0.1:8091")
        .containsEntry("ANTHROPIC_AUTH_TOKEN", ProviderEndpoint.PLACEHOLDER)
        .containsEntry("HOME", "/home/berth")
        .doesNotContainKeys("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN");
    assertThat(codex)
        .containsEntry("CODEX_HOME", "/home/berth/.codex")
        .containsValue(ProviderEndpoint.PLACEHOLDER);
  }

  @Test
  void theManagedSettingsAreRewrittenBeforeEveryRunAndALinkInTheirPlaceIsReplaced(
      @TempDir Path state) throws Exception {
    AgentPaths paths = AgentPaths.under(state);
    Path settings = paths.home().resolve(ClaudeCodeAdapter.SETTINGS);
    ClaudeCodeAdapter.claudeCode().prepare(paths);
    Path elsewhere = Files.writeString(state.resolve("elsewhere.json"), "{}");
    Files.delete(settings);
    Files.createSymbolicLink(settings, elsewhere);

    List<Path> written = ClaudeCodeAdapter.claudeCode().prepare(paths);

    assertThat(Files.isSymbolicLink(settings)).isFalse();
    assertThat(Files.readString(settings)).isEqualTo(ClaudeCodeAdapter.MANAGED_SETTINGS);
    assertThat(Files.readString(elsewhere)).isEqualTo("{}");
    assertThat(written).contains(settings, paths.workspace());
  }

  @Test
  void onlyAGatedSessionsClaudeCodeIsLetOfferTheWebToolsTheGateDecidesOn(@TempDir Path state)
      throws Exception {
    AgentPaths paths = AgentPaths.under(state);
    Path settings = paths.home().resolve(ClaudeCodeAdapter.SETTINGS);

    ClaudeCodeAdapter.claudeCode().prepare(paths);
    assertThat(Files.readString(settings)).doesNotContain("WebFetch").doesNotContain("WebSearch");

    ClaudeCodeAdapter.claudeCode().gated().prepare(paths);
    assertThat(Files.readString(settings)).contains("\"WebFetch\"", "\"WebSearch\"", "\"Bash\"");
  }

  @Test
  void aDamagedConversationFileLosesTheResumeNotTheSession(@TempDir Path state) throws Exception {
    Files.writeString(state.resolve(Conversation.FILE), "{not json");

    assertThat(Conversation.read(state)).isEqualTo(Conversation.none());
    new Conversation(Optional.of("c-1"), true).write(state);
    assertThat(Conversation.read(state)).isEqualTo(new Conversation(Optional.of("c-1"), true));
  }
}
