package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * The server dies as with SIGKILL (a failpoint halts it at a protocol step) during a suspend or a
 * restore, and in some runs its node dies with it; then the server restarts. The session must end
 * fully suspended or fully restored with its work intact: never a torn archive, never a runtime
 * removed behind an archive that was not committed, never two live runtimes.
 */
class SuspendResumeCrashIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);

  @TempDir Path work;
  private Path dataDir;

  @AfterEach
  void stopNode() {
    ServerProcess.killNode(dataDir);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "suspend.prepare",
        "suspend.before-commit-record",
        "suspend.after-commit",
        "suspend.remove-runtime",
        "suspend.after-remove"
      })
  void aServerKilledDuringASuspendEndsWithTheSessionSuspendedAndItsWorkIntact(String failpoint) {
    dataDir = work.resolve("data");
    // The suspend's failpoints are not on the way of a create: the dying server sets up too.
    ServerProcess dying = ServerProcess.start(dataDir, Map.of("BERTH_FAILPOINTS", failpoint));
    String id = sessionWithWork(dying);
    crashDuring(dying, failpoint, api -> api.post("/sessions/" + id + "/snapshot", ""));

    try (ServerProcess restarted = ServerProcess.start(dataDir, Map.of())) {
      Api after = new Api(restarted.baseUrl(), ServerProcess.ADMIN_TOKEN);
      awaitState(after, id, "snapshot");
      assertSuspendedCleanly(after, id);
      assertWorkIntact(after, id);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"start.create-runtime", "resume.restore", "start.before-ready"})
  void aServerKilledDuringARestoreEndsWithOneRestoredRuntime(String failpoint) {
    dataDir = work.resolve("data");
    String id = suspendedSessionWithWork();
    ServerProcess dying = ServerProcess.start(dataDir, Map.of("BERTH_FAILPOINTS", failpoint));
    crashDuring(dying, failpoint, api -> api.post("/sessions/" + id + "/read", "{\"offset\":0}"));

    try (ServerProcess restarted = ServerProcess.start(dataDir, Map.of())) {
      Api after = new Api(restarted.baseUrl(), ServerProcess.ADMIN_TOKEN);
      awaitState(after, id, "active");
      assertWorkIntact(after, id);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"suspend.prepare", "resume.restore"})
  void aNodeKilledWithTheServerAtAStepEndsWithTheSessionSuspendedOrRestored(String failpoint) {
    dataDir = work.resolve("data");
    boolean resuming = failpoint.startsWith("resume");
    String id;
    ServerProcess dying;
    if (resuming) {
      id = suspendedSessionWithWork();
      dying = ServerProcess.start(dataDir, Map.of("BERTH_FAILPOINTS", failpoint));
    } else {
      dying = ServerProcess.start(dataDir, Map.of("BERTH_FAILPOINTS", failpoint));
      id = sessionWithWork(dying);
    }
    crashDuring(
        dying,
        failpoint,
        api -> {
          if (resuming) {
            api.post("/sessions/" + id + "/read", "{\"offset\":0}");
          } else {
            api.post("/sessions/" + id + "/snapshot", "");
          }
        });
    ServerProcess.killNode(dataDir);

    try (ServerProcess restarted = ServerProcess.start(dataDir, Map.of())) {
      Api after = new Api(restarted.baseUrl(), ServerProcess.ADMIN_TOKEN);
      awaitState(after, id, resuming ? "active" : "snapshot");
      if (!resuming) {
        assertSuspendedCleanly(after, id);
      }
      assertWorkIntact(after, id);
    }
  }

  /** A session whose shell did some work: an exported variable and output. */
  private static String sessionWithWork(ServerProcess server) {
    Api api = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
    String id = api.create("crash-" + System.nanoTime());
    api.post(
        "/sessions/" + id + "/write",
        "{\"payload\":\"export MARKER=42; echo before-$((2*3))\\n\"}");
    await().atMost(CONVERGE).until(() -> api.text(id, 0).contains("before-6"));
    return id;
  }

  private String suspendedSessionWithWork() {
    try (ServerProcess first = ServerProcess.start(dataDir, Map.of())) {
      String id = sessionWithWork(first);
      Api api = new Api(first.baseUrl(), ServerProcess.ADMIN_TOKEN);
      Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "");
      assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
      assertThat(snapshot.json().path("state").asString()).isEqualTo("snapshot");
      return id;
    }
  }

  private static void crashDuring(
      ServerProcess dying, String failpoint, java.util.function.Consumer<Api> request) {
    Api api = new Api(dying.baseUrl(), ServerProcess.ADMIN_TOKEN);
    CompletableFuture.runAsync(
        () -> {
          try {
            request.accept(api);
          } catch (RuntimeException connectionDroppedByTheCrash) {
            // expected: the server halts mid-request
          }
        });
    dying.awaitExit();
    assertThat(dying.process().exitValue()).as("halted at " + failpoint).isEqualTo(137);
  }

  private static void awaitState(Api api, String id, String state) {
    await()
        .atMost(CONVERGE)
        .until(() -> api.get("/sessions/" + id).json().path("state").asString().equals(state));
  }

  /** No runtime left, the committed archive whole, no partial upload left behind. */
  private void assertSuspendedCleanly(Api api, String id) {
    JsonNode session = api.get("/sessions/" + id).json();
    assertThat(session.path("pod").isMissingNode()).isTrue();
    List<JsonNode> runtimes = ServerProcess.nodeRuntimes(dataDir);
    assertThat(runtimes).as("runtimes on the node").isEmpty();
    long size = session.path("checkpoint").path("sizeBytes").asLong();
    assertThat(size).isPositive();
    List<Path> files = archiveFiles();
    assertThat(files)
        .as("archive files")
        .anySatisfy(
            f -> {
              assertThat(f.getFileName().toString()).endsWith(".tar.zst");
              assertThat(sizeOf(f)).isEqualTo(size);
            })
        .noneSatisfy(f -> assertThat(f.getFileName().toString()).startsWith(".upload-"));
  }

  /** The session restores (or is) active with one runtime, its output and its variable. */
  private void assertWorkIntact(Api api, String id) {
    assertThat(api.text(id, 0)).contains("before-6");
    awaitState(api, id, "active");
    List<JsonNode> runtimes = ServerProcess.nodeRuntimes(dataDir);
    assertThat(runtimes).as("runtimes on the node").hasSize(1);
    assertThat(runtimes.get(0).path("runtime").asString())
        .isEqualTo(api.get("/sessions/" + id).json().path("pod").asString());
    api.post("/sessions/" + id + "/write", "{\"payload\":\"echo marker-$MARKER\\n\"}");
    await().atMost(CONVERGE).until(() -> api.text(id, 0).contains("marker-42"));
  }

  private List<Path> archiveFiles() {
    try (Stream<Path> all = Files.walk(dataDir.resolve("archives"))) {
      return all.filter(Files::isRegularFile).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
