package dev.berth.core.access;

import static dev.berth.core.access.AccessFixture.ACME;
import static dev.berth.core.access.AccessFixture.AS_ACME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.PromptTooLargeException;
import dev.berth.core.error.WorkloadNotAllowedException;
import dev.berth.core.error.WorkloadUnavailableException;
import dev.berth.core.session.AgentModel;
import dev.berth.core.session.Phase;
import dev.berth.core.session.PluginName;
import dev.berth.core.session.Session;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.tenant.Tenant;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Agent sessions in the core: which types may be created, their model, and writes as prompts. */
class AgentSessionsTest {

  private static final WorkloadType CLAUDE = new WorkloadType("claude-code");

  private final AccessFixture f = new AccessFixture();

  /** An installation with Claude Code configured (and nothing else). */
  private static final WorkloadCatalog CLAUDE_ONLY =
      new WorkloadCatalog() {
        @Override
        public Optional<String> unavailable(WorkloadType type) {
          return type.equals(CLAUDE)
              ? Optional.empty()
              : WorkloadCatalog.shellsOnly().unavailable(type);
        }

        @Override
        public List<AgentOffer> configuredAgents() {
          return List.of(new AgentOffer(CLAUDE, "platform-default", List.of(), false));
        }
      };

  private static CreateSession.Request agent(String type, Optional<String> model) {
    return new CreateSession.Request(
        "helper", Optional.of(type), model, List.of(), Optional.empty(), "tester", true);
  }

  private void grant(WorkloadType... types) {
    f.directory.upsertTenant(new Tenant(ACME, Set.of(types), 5, f.clock.instant()));
  }

  private Session claude() {
    grant(WorkloadType.SHELL, CLAUDE);
    return f.createSession(() -> {}, CLAUDE_ONLY)
        .create(AS_ACME, agent("claude-code", Optional.empty()))
        .session();
  }

  @Test
  void approvalGatedIsAcceptedAsMinimaxCodeWhoseGrantAndConfigurationItNeeds() {
    grant(WorkloadType.SHELL, CLAUDE);
    assertThatThrownBy(
            () ->
                f.createSession(() -> {}, CLAUDE_ONLY)
                    .create(AS_ACME, agent("approval-gated", Optional.empty())))
        .isInstanceOf(dev.berth.core.error.WorkloadNotAllowedException.class)
        .hasMessageContaining("minimax-code");

    grant(WorkloadType.SHELL, new WorkloadType("minimax-code"));
    assertThatThrownBy(
            () ->
                f.createSession(() -> {}, CLAUDE_ONLY)
                    .create(AS_ACME, agent("approval-gated", Optional.empty())))
        .isInstanceOf(dev.berth.core.error.WorkloadUnavailableException.class)
        .hasMessageContaining("workload type minimax-code is not configured");
  }

  @Test
  void aTenantNotGrantedAnAgentTypeHears403EvenWhereTheTypeIsNotConfigured() {
    assertThatThrownBy(
            () -> f.createSession(() -> {}).create(AS_ACME, agent("codex", Optional.empty())))
        .isInstanceOf(WorkloadNotAllowedException.class);
  }

  @Test
  void aGrantedTypeThatIsNotConfiguredIs503NamingWhatIsMissingAndStoresNothing() {
    grant(WorkloadType.SHELL, new WorkloadType("codex"));

    assertThatThrownBy(
            () ->
                f.createSession(() -> {}, CLAUDE_ONLY)
                    .create(AS_ACME, agent("codex", Optional.empty())))
        .isInstanceOf(WorkloadUnavailableException.class)
        .hasMessageContaining("codex")
        .hasMessageContaining("CLI and provider");
    assertThat(f.store.list(SessionQuery.all(10)).items()).isEmpty();
  }

  /** Claude Code configured with a marketplace of one plugin, {@code lint}. */
  private static final WorkloadCatalog CLAUDE_WITH_PLUGINS =
      new WorkloadCatalog() {
        @Override
        public Optional<String> unavailable(WorkloadType type) {
          return CLAUDE_ONLY.unavailable(type);
        }

        @Override
        public List<AgentOffer> configuredAgents() {
          return List.of(new AgentOffer(CLAUDE, "platform-default", List.of(), true));
        }

        @Override
        public List<PluginName> marketplace() {
          return List.of(new PluginName("lint"));
        }
      };

  private Session withPlugins(WorkloadCatalog catalog, String type, List<String> plugins) {
    grant(WorkloadType.SHELL, CLAUDE);
    return f.createSession(() -> {}, catalog)
        .create(
            AS_ACME,
            new CreateSession.Request(
                "p", Optional.of(type), Optional.empty(), plugins, Optional.empty(), "t", true))
        .session();
  }

  @Test
  void aSessionKeepsThePluginsOfTheMarketplaceItAskedForAndNoneByDefault() {
    assertThat(withPlugins(CLAUDE_WITH_PLUGINS, "claude-code", List.of("lint")).plugins())
        .containsExactly(new PluginName("lint"));
    assertThat(claude().plugins()).isEmpty();
  }

  @Test
  void pluginsOutsideTheMarketplaceRepeatedOnAShellOrOnATypeThatTakesNoneAreRefused() {
    assertThatThrownBy(() -> withPlugins(CLAUDE_WITH_PLUGINS, "claude-code", List.of("other")))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("not in this installation's marketplace");
    assertThatThrownBy(
            () -> withPlugins(CLAUDE_WITH_PLUGINS, "claude-code", List.of("lint", "lint")))
        .hasMessageContaining("must not repeat");
    assertThatThrownBy(() -> withPlugins(CLAUDE_WITH_PLUGINS, "claude-code", List.of("../x")))
        .hasMessageContaining("plugin name must match");
    assertThatThrownBy(() -> withPlugins(CLAUDE_WITH_PLUGINS, "shell", List.of("lint")))
        .hasMessageContaining("agent sessions only");
    assertThatThrownBy(() -> withPlugins(CLAUDE_ONLY, "claude-code", List.of("lint")))
        .hasMessageContaining("takes no plugins");
    assertThat(f.store.list(SessionQuery.all(10)).items()).isEmpty();
  }

  @Test
  void aPluginRefreshIsAnAccessThatRestoresASnapshotFirstAndAnswersTheSessionsPlugins() {
    Session s = withPlugins(CLAUDE_WITH_PLUGINS, "claude-code", List.of("lint"));
    f.snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester");

    SessionData.Served<List<PluginName>> refreshed =
        f.sessionData().refreshPlugins(AS_ACME, s.id(), "tester");

    assertThat(refreshed.result()).containsExactly(new PluginName("lint"));
    assertThat(refreshed.activation().path()).isEqualTo("snapshot->restore->refresh");
    Session restored = f.get(s.id());
    assertThat(restored.phase()).isEqualTo(Phase.READY);
    assertThat(f.data.pluginRefreshes(restored.runtime().orElseThrow())).isEqualTo(1);
  }

  @Test
  void aShellHasNoPluginsToRefreshAndIsNotRestoredToBeToldSo() {
    Session shell = f.snapshot();

    assertThatThrownBy(() -> f.sessionData().refreshPlugins(AS_ACME, shell.id(), "tester"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("shell session and has no plugins");
    assertThat(f.get(shell.id()).phase()).isEqualTo(Phase.SUSPENDED);
  }

  @Test
  void anAgentSessionWithoutAModelKeepsPlatformDefaultAndAShellTakesNoModel() {
    assertThat(claude().model()).contains(AgentModel.PLATFORM_DEFAULT);

    assertThatThrownBy(
            () ->
                f.createSession(() -> {}, CLAUDE_ONLY)
                    .create(
                        AS_ACME,
                        new CreateSession.Request(
                            "s",
                            Optional.empty(),
                            Optional.of("fake-large"),
                            List.of(),
                            Optional.empty(),
                            "tester",
                            true)))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("omit it for shell");
    assertThatThrownBy(
            () ->
                f.createSession(() -> {}, CLAUDE_ONLY)
                    .create(AS_ACME, agent("claude-code", Optional.of("two words"))))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("model must match");
  }

  @Test
  void aWriteToAnAgentSessionIsAPromptAnsweredWithItsExecution() {
    Session s = claude();

    SessionData.Written written =
        f.sessionData()
            .write(
                AS_ACME,
                s.id(),
                "what is my name?".getBytes(StandardCharsets.UTF_8),
                Optional.of("plan"),
                "tester");

    assertThat(written.prompt()).isPresent();
    assertThat(written.prompt().get().command()).isEqualTo("what is my name?");
    assertThat(f.data.output(s.runtime().orElseThrow())).contains("echo: what is my name?");
    assertThat(f.sessionData().transcript(AS_ACME, s.id(), 0, 10).entries()).hasSize(2);
  }

  @Test
  void aPromptOverOneMebibyteIsRefusedBeforeASnapshotIsRestored() {
    Session s = claude();
    f.snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester");
    byte[] large = new byte[PromptTooLargeException.MAX_PROMPT_BYTES + 1];

    assertThatThrownBy(
            () -> f.sessionData().write(AS_ACME, s.id(), large, Optional.empty(), "tester"))
        .isInstanceOf(PromptTooLargeException.class);
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.SUSPENDED);
  }

  @Test
  void anEmptyPromptOrABypassingPermissionModeIsRefusedBeforeASnapshotIsRestored() {
    Session s = claude();
    f.snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester");

    assertThatThrownBy(
            () ->
                f.sessionData()
                    .write(
                        AS_ACME,
                        s.id(),
                        " \n".getBytes(StandardCharsets.UTF_8),
                        Optional.empty(),
                        "tester"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("prompt is empty");
    assertThatThrownBy(
            () ->
                f.sessionData()
                    .write(
                        AS_ACME,
                        s.id(),
                        "go".getBytes(StandardCharsets.UTF_8),
                        Optional.of("bypassPermissions"),
                        "tester"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("never allowed");
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.SUSPENDED);
  }

  @Test
  void aShellTakesNoPermissionModeAndHasNoTranscript() {
    Session s = f.ready();

    assertThatThrownBy(
            () ->
                f.sessionData()
                    .write(
                        AS_ACME,
                        s.id(),
                        "ls\n".getBytes(StandardCharsets.UTF_8),
                        Optional.of("plan"),
                        "tester"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("permissionMode");
    assertThatThrownBy(() -> f.sessionData().transcript(AS_ACME, s.id(), 0, 10))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("no transcript");
  }
}
