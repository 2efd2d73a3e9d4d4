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
import tools.jackson.databind.JsonNode;

/**
 * The steps the crash tests of suspend and restore share: a session with work to keep, a crash at a
 * failpoint, and the checks that what came out of the restart is whole.
 */
final class CrashSteps {

  static final Duration CONVERGE = Duration.ofSeconds(90);

  private final Path dataDir;

  CrashSteps(Path dataDir) {
    this.dataDir = dataDir;
  }

  /** A session whose shell did some work: an exported variable and output. */
  static String sessionWithWork(ServerProcess server) {
    Api api = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
    String id = api.create("crash-" + System.nanoTime());
    api.post(
        "/sessions/" + id + "/write",
        "{\"payload\":\"export MARKER=42; echo before-$((2*3))\\n\"}");
    await().atMost(CONVERGE).until(() -> api.text(id, 0).contains("before-6"));
    return id;
  }

  String suspendedSessionWithWork() {
    try (ServerProcess first = ServerProcess.start(dataDir, Map.of())) {
      String id = sessionWithWork(first);
      Api api = new Api(first.baseUrl(), ServerProcess.ADMIN_TOKEN);
      Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "");
      assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
      assertThat(snapshot.json().path("state").asString()).isEqualTo("snapshot");
      return id;
    }
  }

  static void crashDuring(
      ServerProcess dying, String failpoint, java.util.function.Consumer<Api> request) {
    Api api = new Api(dying.baseUrl(), ServerProcess.ADMIN_TOKEN);
    var unused =
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

  /**
   * Until the session reads {@code state} and has settled there: a session still provisioning reads
   * {@code active} and one restoring {@code snapshot}, so the phase must be READY or SUSPENDED too.
   */
  static void awaitState(Api api, String id, String state) {
    await()
        .atMost(CONVERGE)
        .until(
            () -> {
              JsonNode s = api.get("/sessions/" + id).json();
              return s.path("state").asString().equals(state)
                  && java.util.Set.of("READY", "SUSPENDED").contains(s.path("phase").asString());
            });
  }

  /** No runtime left, the committed archive whole, no partial upload left behind. */
  void assertSuspendedCleanly(Api api, String id) {
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
  void assertWorkIntact(Api api, String id) {
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
