package dev.berth.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.contract.CommandHeaders;
import dev.berth.protocol.problem.AgentReason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a host keeps per session lives only as long as the session is hosted or a command on it
 * runs: its lock, its open contract and its runtime go with its removal.
 */
class SessionHostReleasesTest {

  private static final String TOKEN = "t".repeat(64);

  @TempDir Path root;
  private SessionHost host;

  @BeforeEach
  void open() {
    host = SessionHost.open(HostConfig.defaults(root, TOKEN), Clock.systemUTC());
  }

  @AfterEach
  void close() {
    host.close();
  }

  @Test
  void afterManySessionsWereCreatedUsedAndRemovedTheHostHoldsNothingForAnyOfThem() {
    List<SessionId> sessions = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      SessionId session = newSession();
      sessions.add(session);
      // Most await an archive (nothing runs); every tenth runs a real shell that takes input.
      boolean shell = i % 10 == 0;
      Optional<CommandHeaders> headers =
          i % 2 == 0 ? Optional.of(headers(session, OperationType.PROVISION, 1)) : Optional.empty();
      host.provision(session, request(session, 1, !shell), headers);
      if (shell) {
        host.input(session, Optional.empty(), "echo hi\n".getBytes(StandardCharsets.UTF_8));
      } else {
        assertThatThrownBy(() -> host.input(session, Optional.empty(), new byte[] {'x'}))
            .isInstanceOfSatisfying(
                HostRefusal.class, r -> assertThat(r.reason()).isEqualTo(AgentReason.RESTORING));
      }
    }

    assertThat(host.hostedSessions()).isEqualTo(60);
    // Each hosted runtime holds its own session's contract; no command runs, so no lock is held.
    assertThat(host.openContracts()).isEqualTo(60);
    assertThat(host.lockedSessions()).isZero();

    for (SessionId session : sessions) {
      host.remove(session, Optional.empty());
    }

    assertThat(host.hostedSessions()).isZero();
    assertThat(host.openContracts()).isZero();
    assertThat(host.lockedSessions()).isZero();
  }

  @Test
  void commandsOnASessionThatIsNotHostedLeaveNothingOpenBehind() {
    SessionId session = newSession();

    assertThatThrownBy(() -> host.input(session, Optional.empty(), new byte[] {'x'}))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> host.terminate(session, headers(session, OperationType.TERMINATE, 1)))
        .isInstanceOf(NotFoundException.class);
    host.remove(session, Optional.empty());

    assertThat(host.openContracts()).isZero();
    assertThat(host.lockedSessions()).isZero();
  }

  @Test
  void aContractDroppedWithItsRuntimeStillRefusesAStaleProvisionWhenItIsOpenedAgain() {
    SessionId session = newSession();
    host.provision(
        session, request(session, 1, true), Optional.of(headers(session, OperationType.RESUME, 5)));
    host.remove(session, Optional.empty());
    assertThat(host.openContracts()).isZero();

    assertThatThrownBy(
            () ->
                host.provision(
                    session,
                    request(session, 2, true),
                    Optional.of(headers(session, OperationType.PROVISION, 3))))
        .isInstanceOf(StaleIntentException.class);
    assertThat(host.hostedSessions()).isZero();
    assertThat(host.openContracts()).isZero();
  }

  @Test
  void aTombstoneOutlivesTheRuntimeWhoseContractWasDropped() {
    SessionId session = newSession();
    host.provision(session, request(session, 1, true), Optional.empty());
    host.terminate(session, headers(session, OperationType.TERMINATE, 2));
    host.remove(session, Optional.empty());
    assertThat(host.openContracts()).isZero();

    assertThatThrownBy(
            () ->
                host.provision(
                    session,
                    request(session, 2, true),
                    Optional.of(headers(session, OperationType.PROVISION, 3))))
        .isInstanceOf(TerminalIntentException.class);
    assertThat(host.openContracts()).isZero();
    assertThat(host.lockedSessions()).isZero();
  }

  private static SessionId newSession() {
    return SessionId.generate(RandomGenerator.getDefault());
  }

  private static RuntimeRequest request(SessionId session, long incarnation, boolean await) {
    return new RuntimeRequest(
        RuntimeRef.nameFor(session, incarnation), incarnation, "shell", Map.of(), await, null);
  }

  private static CommandHeaders headers(SessionId session, OperationType type, long version) {
    return new CommandHeaders(
        version,
        Clock.systemUTC().instant().plusSeconds(30),
        OperationId.of(session, type, version));
  }
}
