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
        "helper", Optional.of(type), model, Optional.empty(), "tester", true);
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
