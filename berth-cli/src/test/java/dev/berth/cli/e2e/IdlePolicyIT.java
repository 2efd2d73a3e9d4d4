package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.core.lifecycle.Failpoints;
import dev.berth.core.testing.MutableClock;
import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The idle policy against a real server, node and shell, with the control plane's clock in the
 * test's hand: the clock stands still unless the test moves it, so the policy's boundaries are hit
 * to the nanosecond and no test waits an hour. The clock starts a day ahead of the wall clock so
 * that the deadlines the control plane gives the agent (which checks them by its own clock) stay in
 * the future however long a test runs. The scan runs when a test calls it.
 */
class IdlePolicyIT {

  private static final Duration SUSPEND_AFTER = Duration.ofMinutes(60);
  private static final Duration CONVERGE = Duration.ofSeconds(90);

  @TempDir Path work;
  private final MutableClock clock = new MutableClock(Instant.now().plus(Duration.ofDays(1)));
  private final HeldStep held = new HeldStep();
  private BerthServer server;
  private Api api;

  @BeforeEach
  void startServer() {
    ServerConfig config =
        new ServerConfig("127.0.0.1", 0, work.resolve("data"))
            .withAdminToken(Optional.of(ServerProcess.ADMIN_TOKEN))
            // Only the test's scans: a periodic one would race the clock moves.
            .withLifecycle(ServerConfig.Lifecycle.defaults().withIdleScan(Duration.ofDays(1)));
    server = new BerthServer(config, clock.withZone(ZoneOffset.UTC), held).start();
    api = new Api("http://127.0.0.1:" + server.port(), ServerProcess.ADMIN_TOKEN);
  }

  @AfterEach
  void stopServer() {
    held.release();
    server.close();
    ServerProcess.killNode(work.resolve("data"));
  }

  @Test
  void anIdleShellIsSuspendedAtTheBoundaryAndNotOneTickBefore() {
    String id = api.create("sleepy");
    Instant lastAccess = lastAccess(id);

    clock.set(lastAccess.plus(SUSPEND_AFTER).minusNanos(1));
    assertThat(server.scanIdle()).isEmpty();
    assertThat(state(id)).isEqualTo("idle");
    assertThat(api.get("/sessions/" + id + "/idle").json().path("decision").asString())
        .isEqualTo("idle");

    clock.set(lastAccess.plus(SUSPEND_AFTER));
    assertThat(server.scanIdle()).extracting(Object::toString).containsExactly(id);
    await().atMost(CONVERGE).until(() -> state(id).equals("snapshot"));
    JsonNode session = api.get("/sessions/" + id).json();
    assertThat(session.path("pod").isMissingNode()).as("the runtime is reclaimed").isTrue();
    assertThat(session.path("checkpoint").path("sizeBytes").asLong()).isPositive();
  }

  @Test
  void aRunningExecutionHoldsTheSessionUntilMaxBusy() {
    String id = api.create("working");
    Api.Answer started = api.post("/sessions/" + id + "/executions", "{\"command\":\"sleep 600\"}");
    assertThat(started.status()).as(started.body()).isEqualTo(201);
    Instant lastAccess = lastAccess(id);

    clock.set(lastAccess.plus(SUSPEND_AFTER));
    assertThat(server.scanIdle()).isEmpty();
    JsonNode idle = api.get("/sessions/" + id + "/idle").json();
    assertThat(idle.path("decision").asString()).isEqualTo("held");
    assertThat(idle.path("hold").asString()).isEqualTo("EXECUTION_RUNNING");
    assertThat(state(id)).isEqualTo("idle");
  }

  @Test
  void aShellBusyWithAForegroundJobHoldsTheSession() {
    String id = api.create("compiling");
    api.post("/sessions/" + id + "/write", "{\"payload\":\"sleep 600\\n\"}");
    Instant lastAccess = lastAccess(id);

    clock.set(lastAccess.plus(SUSPEND_AFTER));
    // The shell hands the terminal to sleep a moment after the write.
    await()
        .atMost(CONVERGE)
        .until(
            () -> api.get("/sessions/" + id + "/idle").json().path("hold").asString(""),
            "SHELL_BUSY"::equals);
    assertThat(server.scanIdle()).isEmpty();
    assertThat(state(id)).isEqualTo("idle");
  }

  @Test
  void aKeepAliveHoldsTheSessionUntilItEnds() {
    String id = api.create("kept");
    Instant lastAccess = lastAccess(id);
    clock.set(lastAccess.plus(Duration.ofMinutes(30)));
    Api.Answer kept = api.post("/sessions/" + id + "/keepalive", "{\"seconds\":3600}");
    assertThat(kept.status()).as(kept.body()).isEqualTo(200);

    clock.set(lastAccess.plus(Duration.ofMinutes(90)).minusNanos(1));
    assertThat(server.scanIdle()).isEmpty();
    assertThat(api.get("/sessions/" + id + "/idle").json().path("hold").asString())
        .isEqualTo("KEEP_ALIVE");

    clock.set(lastAccess.plus(Duration.ofMinutes(90)));
    assertThat(server.scanIdle()).extracting(Object::toString).containsExactly(id);
    await().atMost(CONVERGE).until(() -> state(id).equals("snapshot"));
  }

  @Test
  void anAccessDuringTheIdleSuspendAbortsIt() throws Exception {
    String id = api.create("raced");
    String runtime = api.get("/sessions/" + id).json().path("pod").asString();
    Instant lastAccess = lastAccess(id);
    held.holdAt("suspend.prepare");

    clock.set(lastAccess.plus(SUSPEND_AFTER));
    assertThat(server.scanIdle()).extracting(Object::toString).containsExactly(id);
    assertThat(held.awaitReached()).as("the suspend reached its first step").isTrue();

    CompletableFuture<Api.Answer> read =
        CompletableFuture.supplyAsync(
            () -> api.post("/sessions/" + id + "/read", "{\"offset\":0}"));
    await()
        .atMost(CONVERGE)
        .until(
            () ->
                api.get("/sessions/" + id)
                    .json()
                    .path("intent")
                    .path("desired")
                    .asString()
                    .equals("RUNNING"));
    held.release();

    Api.Answer answer = read.get(CONVERGE.toSeconds(), TimeUnit.SECONDS);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.json().path("path").asString()).isEqualTo("idle->active->read");
    await().atMost(CONVERGE).until(() -> state(id).equals("active"));
    assertThat(api.get("/sessions/" + id).json().path("pod").asString())
        .as("the same runtime goes on")
        .isEqualTo(runtime);
    api.post("/sessions/" + id + "/write", "{\"payload\":\"echo still-$((6*7))\\n\"}");
    await().atMost(CONVERGE).until(() -> api.text(id, 0).contains("still-42"));
  }

  @Test
  void aDeletedSessionsArchiveIsDeletedWhenTheRecoveryWindowEndsAndCannotBeRecoveredThen() {
    String id = api.create("expiring");
    Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    String uri = snapshot.json().path("archive").path("uri").asString();
    assertThat(api.delete("/sessions/" + id).status()).isEqualTo(204);

    clock.advance(Duration.ofDays(7));
    server.resync();

    await()
        .atMost(CONVERGE)
        .until(() -> api.deleted(id).path("obligations").toString().contains("archive deleted"));
    assertThat(
            java.nio.file.Files.exists(
                work.resolve("data/archives")
                    .resolve(uri.substring("archive://".length()) + ".tar.zst")))
        .as("the archive file of %s", uri)
        .isFalse();
    Api.Answer recover = api.post("/sessions/" + id + "/recover", "");
    assertThat(recover.status()).isEqualTo(410);
    assertThat(recover.reason()).isEqualTo("RECOVERY_WINDOW_ENDED");
  }

  private Instant lastAccess(String id) {
    return Instant.parse(api.get("/sessions/" + id).json().path("lastAccess").asString());
  }

  private String state(String id) {
    return api.get("/sessions/" + id).json().path("state").asString();
  }

  /** Holds the reconciler at one named step until the test releases it. */
  private static final class HeldStep implements Failpoints {
    private volatile String name = "";
    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    void holdAt(String step) {
      name = step;
    }

    boolean awaitReached() throws InterruptedException {
      return reached.await(CONVERGE.toSeconds(), TimeUnit.SECONDS);
    }

    void release() {
      released.countDown();
    }

    @Override
    public void reach(String step) {
      if (!step.equals(name)) {
        return;
      }
      reached.countDown();
      try {
        released.await(CONVERGE.toSeconds(), TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
