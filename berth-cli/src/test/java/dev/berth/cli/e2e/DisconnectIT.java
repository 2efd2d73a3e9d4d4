package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The disconnect contract end to end (STATE-MODEL §4 "Disconnection"): the real {@code bin/berth
 * server} renews its runtimes' control leases on the real node; killed with SIGKILL, it renews
 * nothing, and the node applies the session's disconnect policy by itself — {@code continue} keeps
 * the shell for the grace and then stops it, {@code stop} stops it at the expiry. Started again,
 * the server reconciles the session to FAILED with LEASE_EXPIRED, and never starts a second runtime
 * for it.
 */
class DisconnectIT {

  /** Short, yet renewed every 2 s: a loaded machine's late renewal must not expire it early. */
  private static final String TTL = "6s";

  private static final Duration GRACE = Duration.ofSeconds(8);
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path work;
  private Path dataDir;

  @AfterEach
  void stopNode() {
    ServerProcess.killNode(dataDir);
  }

  @Test
  void underContinueTheNodeStopsTheShellAfterTheGraceAndTheRestartedServerFailsTheSession() {
    dataDir = work.resolve("data");
    ServerProcess.Launch launch =
        ServerProcess.Launch.plain()
            .withArguments(
                "--control-lease-ttl",
                TTL,
                "--disconnect-policy",
                "continue",
                "--disconnect-grace",
                GRACE.toSeconds() + "s");
    ServerProcess server = ServerProcess.start(dataDir, Map.of(), launch);
    Api admin = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
    String id = admin.create("kept-for-a-while");
    JsonNode lease = heldLease(admin, id);
    assertThat(lease.path("policy").asString()).isEqualTo("continue");
    assertThat(lease.path("graceSeconds").asLong()).isEqualTo(GRACE.toSeconds());
    assertThat(lease.path("ttlSeconds").asLong()).isEqualTo(6);
    assertThat(lease.has("renewedAt")).as(lease.toString()).isTrue();
    String runtime = onlyRuntime().path("runtime").asString();
    long shell = shellPid();

    server.kill();
    long killedAt = System.nanoTime();

    JsonNode stopped = awaitStopped(runtime);
    Duration took = Duration.ofNanos(System.nanoTime() - killedAt);
    assertThat(stopped.path("stopReason").asString()).isEqualTo("LEASE_EXPIRED");
    assertThat(took).as("kept through the grace after the lease expired").isGreaterThan(GRACE);
    assertThat(ProcessHandle.of(shell).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));

    assertReconciledOnce(launch, id, runtime);
  }

  @Test
  void underATenantsStopPolicyTheNodeStopsTheShellAtTheExpiry() {
    dataDir = work.resolve("data");
    ServerProcess.Launch launch =
        ServerProcess.Launch.plain()
            .withArguments(
                "--control-lease-ttl",
                TTL,
                "--disconnect-policy",
                "continue",
                "--disconnect-grace",
                "10m");
    ServerProcess server = ServerProcess.start(dataDir, Map.of(), launch);
    Api admin = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
    Api.Answer put =
        admin.send(
            "PUT",
            "/admin/tenants/acme",
            "{\"workloadTypes\":[\"shell\"],\"maxSessions\":2,"
                + "\"disconnect\":{\"policy\":\"stop\"}}");
    assertThat(put.status()).as(put.body()).isIn(200, 201);
    assertThat(put.json().path("disconnect").path("policy").asString()).isEqualTo("stop");
    Api.Answer issued =
        admin.post(
            "/admin/tokens",
            "{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\"],\"maxSessions\":2}");
    assertThat(issued.status()).as(issued.body()).isEqualTo(201);
    Api acme = admin.as(issued.json().path("token").asString());
    String id = acme.create("stopped-at-once");
    assertThat(heldLease(acme, id).path("policy").asString()).isEqualTo("stop");
    String runtime = onlyRuntime().path("runtime").asString();
    long shell = shellPid();

    server.kill();
    long killedAt = System.nanoTime();

    JsonNode stopped = awaitStopped(runtime);
    Duration took = Duration.ofNanos(System.nanoTime() - killedAt);
    assertThat(stopped.path("stopReason").asString()).isEqualTo("LEASE_EXPIRED");
    assertThat(took)
        .as("stopped at the expiry (a 6 s lease), long before the server's 10 minutes of grace")
        .isLessThan(Duration.ofSeconds(30));
    assertThat(ProcessHandle.of(shell).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));

    assertReconciledOnce(launch, id, runtime);
  }

  /** The session's lease once the server renewed it, as {@code GET /runtime} shows it. */
  private static JsonNode heldLease(Api api, String id) {
    JsonNode[] lease = {null};
    await()
        .atMost(WAIT)
        .until(
            () -> {
              lease[0] = api.get("/sessions/" + id + "/runtime").json().path("lease");
              return lease[0].path("state").asString().equals("held");
            });
    return lease[0];
  }

  private JsonNode onlyRuntime() {
    List<JsonNode> runtimes = ServerProcess.nodeRuntimes(dataDir);
    assertThat(runtimes).hasSize(1);
    return runtimes.get(0);
  }

  /** The shell's process id, once the node runs it (its status names it while it runs). */
  private long shellPid() {
    long[] pid = {0};
    await()
        .atMost(WAIT)
        .until(
            () -> {
              pid[0] = onlyRuntime().path("shell").path("pid").asLong(0);
              return pid[0] > 0;
            });
    assertThat(ProcessHandle.of(pid[0]).map(ProcessHandle::isAlive)).contains(true);
    return pid[0];
  }

  /** The node's status of {@code runtime} once it stopped the workload by itself. */
  private JsonNode awaitStopped(String runtime) {
    JsonNode[] status = {null};
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              status[0] = onlyRuntime();
              return status[0].path("state").asString().equals("stopped");
            });
    assertThat(status[0].path("runtime").asString()).isEqualTo(runtime);
    return status[0];
  }

  /**
   * Starts the server again: the session fails with LEASE_EXPIRED, its one runtime is the one the
   * node stopped and stays stopped, and no other runtime is started for it.
   */
  private void assertReconciledOnce(ServerProcess.Launch launch, String id, String runtime) {
    try (ServerProcess restarted = ServerProcess.start(dataDir, Map.of(), launch)) {
      Api after = new Api(restarted.baseUrl(), ServerProcess.ADMIN_TOKEN);
      await()
          .atMost(WAIT)
          .until(
              () -> after.get("/sessions/" + id).json().path("phase").asString().equals("FAILED"));
      JsonNode session = after.get("/sessions/" + id).json();
      assertThat(session.path("failure").path("reason").asString()).isEqualTo("LEASE_EXPIRED");
      assertThat(session.path("failure").path("message").asString()).contains("disconnect policy");
      assertThat(session.path("conditions").valueStream())
          .anySatisfy(
              c -> {
                assertThat(c.path("type").asString()).isEqualTo("RuntimeReady");
                assertThat(c.path("status").asString()).isEqualTo("False");
                assertThat(c.path("reason").asString()).isEqualTo("LEASE_EXPIRED");
              });
      // A few more passes of the reconciler and rounds of renewals change nothing.
      await().pollDelay(Duration.ofSeconds(4)).atMost(WAIT).until(() -> true);
      List<JsonNode> runtimes = ServerProcess.nodeRuntimes(dataDir);
      assertThat(runtimes).as("never running twice").hasSize(1);
      assertThat(runtimes.get(0).path("runtime").asString()).isEqualTo(runtime);
      assertThat(runtimes.get(0).path("state").asString()).isEqualTo("stopped");
      assertThat(after.get("/sessions/" + id).json().path("phase").asString()).isEqualTo("FAILED");
    }
  }
}
