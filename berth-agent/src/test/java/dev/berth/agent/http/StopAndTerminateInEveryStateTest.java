package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.contract.DisconnectPolicy;
import dev.berth.agent.host.HostConfig;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host stops a runtime whose lease expired and terminates one on request whatever state it is
 * in: awaiting its archive (a resume in flight), paused for a checkpoint (a suspend in flight), or
 * already stopped. The host ticks leases once a second, so waits allow a tick or two.
 */
class StopAndTerminateInEveryStateTest {

  private static final String TOKEN = "s".repeat(64);
  private static final String A = "5".repeat(32);
  private static final String B = "6".repeat(32);
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path root;
  private RunningHost running;
  private AgentApi api;

  @BeforeEach
  void startHost() {
    running =
        RunningHost.start(
            HostConfig.defaults(root, TOKEN)
                .withDisconnect(DisconnectPolicy.STOP, Duration.ZERO, Optional.empty()));
    api = running.api();
  }

  @AfterEach
  void stopHost() {
    running.close();
  }

  @Test
  void aRuntimeAwaitingItsArchiveIsStoppedByAnExpiredLeaseAndCanStillBeTerminated() {
    assertThat(api.provision(A, 1, true).status()).isEqualTo(201);
    assertThat(state(A)).isEqualTo("awaiting-restore");

    accepted(api.lease(A, 1, command(A, 1, OperationType.RESUME)));
    await().atMost(WAIT).until(() -> state(A).equals("stopped"));
    assertThat(api.status(A).path("stopReason").asString()).isEqualTo("LEASE_EXPIRED");

    accepted(api.terminate(A, command(A, 2, OperationType.TERMINATE)));
    assertThat(state(A)).isEqualTo("terminated");
  }

  @Test
  void aRuntimePausedForACheckpointIsStoppedByAnExpiredLease() {
    assertThat(api.provision(A, 1).status()).isEqualTo(201);
    assertThat(api.checkpoint(A, 1, command(A, 2, OperationType.SUSPEND)).status()).isEqualTo(200);
    assertThat(state(A)).isEqualTo("paused");

    accepted(api.lease(A, 1, command(A, 2, OperationType.RESUME)));
    await().atMost(WAIT).until(() -> state(A).equals("stopped"));
    assertThat(api.status(A).path("stopReason").asString()).isEqualTo("LEASE_EXPIRED");
  }

  @Test
  void aRuntimeAwaitingItsArchiveOrPausedForACheckpointIsTerminatedAtOnce() {
    assertThat(api.provision(A, 1, true).status()).isEqualTo(201);
    assertThat(api.provision(B, 1).status()).isEqualTo(201);
    assertThat(api.checkpoint(B, 1, command(B, 2, OperationType.SUSPEND)).status()).isEqualTo(200);
    assertThat(state(B)).isEqualTo("paused");

    accepted(api.terminate(A, command(A, 2, OperationType.TERMINATE)));
    accepted(api.terminate(B, command(B, 3, OperationType.TERMINATE)));

    assertThat(state(A)).isEqualTo("terminated");
    assertThat(state(B)).isEqualTo("terminated");
  }

  private String state(String session) {
    return api.status(session).path("state").asString();
  }

  private static void accepted(AgentApi.Answer answer) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
  }

  private static AgentApi.Command command(String session, long version, OperationType type) {
    return AgentApi.Command.of(
        version, OperationId.of(new SessionId(session), type, version).value());
  }
}
