package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.contract.DisconnectPolicy;
import dev.berth.agent.host.HostConfig;
import dev.berth.agent.host.SessionHost;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The control lease and the local limits, end to end: a real shell whose fate the host decides when
 * the control plane stops renewing. The host ticks leases once a second, so every wait allows a
 * tick or two beyond the time that is due.
 */
class ControlLeaseThroughAgentApiTest {

  private static final String TOKEN = "t".repeat(64);
  private static final String A = "a".repeat(32);
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path root;
  private SessionHost host;
  private AgentHttpServer server;
  private AgentApi api;
  private final AtomicLong operations = new AtomicLong();

  @AfterEach
  void stopHost() {
    if (server != null) {
      server.close();
    }
    if (host != null) {
      host.close();
    }
  }

  @Test
  void underStopAnExpiredLeaseStopsTheWorkloadAndClosesAdmissionUntilARenewal() {
    startHost(DisconnectPolicy.STOP, Duration.ZERO, Optional.empty());
    long shellPid = api.status(A).path("shell").path("pid").asLong();

    Instant expiresAt = renew(1);

    await().atMost(WAIT).until(() -> state(api.status(A)).equals("stopped"));
    JsonNode status = api.status(A);
    assertThat(Instant.now()).isAfterOrEqualTo(expiresAt);
    assertThat(status.path("lease").path("state").asString()).isEqualTo("expired");
    assertThat(status.path("stopReason").asString()).isEqualTo("LEASE_EXPIRED");
    // The state closes admission first, then the shell gets its hang-up: it is gone within the
    // grace, and the status says whether it still runs meanwhile.
    assertRefused(api.input(A, "echo refused\n"), 409, "LEASE_EXPIRED");
    await()
        .atMost(WAIT)
        .until(() -> ProcessHandle.of(shellPid).filter(ProcessHandle::isAlive).isEmpty());
    assertThat(api.status(A).path("shell").path("state").asString()).isNotEqualTo("running");
    assertRefused(api.input(A, "echo refused\n"), 409, "LEASE_EXPIRED");
    assertRefused(api.startExecution(A, "{\"command\":\"echo refused\"}"), 409, "LEASE_EXPIRED");

    renew(60);

    // Admission is open again, but nothing was restarted: there is no shell to take the input.
    JsonNode renewed = api.status(A);
    assertThat(renewed.path("lease").path("state").asString()).isEqualTo("held");
    assertThat(state(renewed)).isEqualTo("stopped");
    assertRefused(api.input(A, "echo refused\n"), 503, "SHELL_EXITED");
  }

  @Test
  void underContinueTheWorkloadRunsThroughTheGraceWhileAdmissionIsClosed() {
    startHost(DisconnectPolicy.CONTINUE, Duration.ofSeconds(2), Optional.empty());
    api.input(A, "while :; do echo tick; sleep 0.1; done\n");

    Instant expiresAt = renew(1);

    await().atMost(WAIT).until(() -> lease(api.status(A)).equals("expired"));
    JsonNode expired = api.status(A);
    assertThat(state(expired)).isEqualTo("running");
    assertRefused(api.input(A, "echo refused\n"), 409, "LEASE_EXPIRED");
    long atExpiry = api.end(A);
    await().atMost(WAIT).until(() -> api.end(A) > atExpiry + 20);
    assertThat(state(api.status(A)))
        .as("the workload still runs in its grace")
        .isEqualTo("running");

    await().atMost(WAIT).until(() -> state(api.status(A)).equals("stopped"));
    assertThat(Instant.now()).isAfterOrEqualTo(expiresAt.plusSeconds(2));
    JsonNode stopped = api.status(A);
    assertThat(stopped.path("stopReason").asString()).isEqualTo("LEASE_EXPIRED");
    long atStop = api.end(A);
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> api.end(A) == atStop);
  }

  @Test
  void renewingBeforeEachExpiryKeepsTheWorkloadRunning() throws InterruptedException {
    startHost(DisconnectPolicy.STOP, Duration.ZERO, Optional.empty());
    Instant until = Instant.now().plusSeconds(3);

    Instant expiresAt = renew(2);
    while (Instant.now().isBefore(until)) {
      // A control plane renews at a fraction of the TTL; this one every half second.
      Thread.sleep(500);
      expiresAt = renew(2);
    }

    JsonNode status = api.status(A);
    assertThat(state(status)).isEqualTo("running");
    assertThat(lease(status)).isEqualTo("held");
    assertThat(Instant.parse(status.path("lease").path("expiresAt").asString()))
        .isEqualTo(expiresAt);
    long cursor = api.end(A);
    assertThat(api.input(A, "echo renewed-$((6*7))\n").status()).isEqualTo(200);
    await().atMost(WAIT).until(() -> api.text(A, cursor).contains("renewed-42"));
  }

  @Test
  void theMaximumLifetimeStopsTheWorkloadWhateverTheLeaseSays() {
    Instant started = Instant.now();
    startHost(
        DisconnectPolicy.CONTINUE, Duration.ofMinutes(15), Optional.of(Duration.ofSeconds(2)));
    renew(60);

    await().atMost(WAIT).until(() -> state(api.status(A)).equals("stopped"));

    assertThat(Instant.now()).isAfterOrEqualTo(started.plusSeconds(2));
    JsonNode status = api.status(A);
    assertThat(status.path("stopReason").asString()).isEqualTo("MAX_LIFETIME_EXCEEDED");
    assertThat(lease(status)).isEqualTo("held");
    assertRefused(api.input(A, "echo refused\n"), 503, "SHELL_EXITED");
  }

  @Test
  void theRuntimesOwnPolicyFromItsRequestWinsOverTheHostsAndTheStatusShowsTheLease() {
    startHost(DisconnectPolicy.CONTINUE, Duration.ofMinutes(15), Optional.empty(), false);
    String body =
        "{\"runtime\":\"berth-"
            + A
            + "-1\",\"incarnation\":1,\"workload\":\"shell\",\"labels\":{},"
            + "\"disconnect\":{\"policy\":\"stop\",\"graceSeconds\":0}}";
    AgentApi.Answer provisioned = api.send("PUT", "/v1/sessions/" + A, body);
    assertThat(provisioned.status()).as(provisioned.body()).isEqualTo(201);
    JsonNode before = api.status(A).path("lease");
    assertThat(before.path("state").asString()).isEqualTo("none");
    assertThat(before.path("policy").asString()).isEqualTo("stop");
    assertThat(before.path("graceSeconds").asLong()).isZero();

    Instant expiresAt = renew(2);
    JsonNode held = api.status(A).path("lease");
    assertThat(held.path("state").asString()).isEqualTo("held");
    assertThat(held.path("ttlSeconds").asLong()).isEqualTo(2);
    assertThat(Instant.parse(held.path("renewedAt").asString()))
        .isEqualTo(expiresAt.minusSeconds(2));

    // Under the host's continue for 15 minutes it would run on; its own stop ends it at expiry.
    await().atMost(WAIT).until(() -> state(api.status(A)).equals("stopped"));
    assertThat(api.status(A).path("stopReason").asString()).isEqualTo("LEASE_EXPIRED");
  }

  @Test
  void aRenewalIsNotRecordedSoTheSameOperationRenewsAgain() throws InterruptedException {
    startHost(DisconnectPolicy.STOP, Duration.ZERO, Optional.empty());
    String operation = OperationId.of(new SessionId(A), OperationType.RESUME, 7).value();
    AgentApi.Answer first = api.lease(A, 60, AgentApi.Command.of(1, operation));
    Thread.sleep(1100);

    AgentApi.Answer again = api.lease(A, 60, AgentApi.Command.of(1, operation));

    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(Instant.parse(again.json().path("expiresAt").asString()))
        .isAfter(Instant.parse(first.json().path("expiresAt").asString()));
    assertThat(api.status(A).path("lease").path("renewedAt").asString())
        .isEqualTo(
            Instant.parse(again.json().path("expiresAt").asString()).minusSeconds(60).toString());
  }

  private void startHost(DisconnectPolicy policy, Duration grace, Optional<Duration> lifetime) {
    startHost(policy, grace, lifetime, true);
  }

  private void startHost(
      DisconnectPolicy policy, Duration grace, Optional<Duration> lifetime, boolean provision) {
    host =
        SessionHost.open(
            HostConfig.defaults(root, TOKEN).withDisconnect(policy, grace, lifetime),
            Clock.systemUTC());
    server = AgentHttpServer.start(host, TOKEN, AgentHttpServer.Settings.loopback(0));
    api = new AgentApi(server.port(), TOKEN);
    if (provision) {
      AgentApi.Answer provisioned = api.provision(A, 1);
      assertThat(provisioned.status()).as(provisioned.body()).isEqualTo(201);
    }
  }

  /** Renews the lease at intent version 1 under a new operation id; returns its expiry. */
  private Instant renew(long ttlSeconds) {
    long n = operations.incrementAndGet();
    String operation = OperationId.of(new SessionId(A), OperationType.RESUME, n).value();
    AgentApi.Answer answer = api.lease(A, ttlSeconds, AgentApi.Command.of(1, operation));
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return Instant.parse(answer.json().path("expiresAt").asString());
  }

  private static String state(JsonNode status) {
    return status.path("state").asString();
  }

  private static String lease(JsonNode status) {
    return status.path("lease").path("state").asString();
  }

  private static void assertRefused(AgentApi.Answer answer, int status, String reason) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(status);
    assertThat(answer.json().path("reason").asString()).isEqualTo(reason);
  }
}
