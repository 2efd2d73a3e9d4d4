package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Real {@code bin/berth server} and {@code bin/berth node} on SQLite: the store file is copied (a
 * backup), a session is created and another terminated, the server stops, the backup is put back
 * and the server starts again. It finds the node's store-epoch mark above its store's epoch and
 * enters recovery mode: creates refused, nothing deleted on the node, the unknown runtime
 * quarantined, until the admin approves; then it works as before.
 */
class StoreBackupRestoreIT {

  private static final Duration CONVERGE = Duration.ofSeconds(60);

  @TempDir Path work;
  private Path dataDir;

  @AfterEach
  void stopNode() {
    ServerProcess.killNode(dataDir);
  }

  @Test
  void aStoreRestoredFromAnOlderBackupIsNoticedQuarantinesWhatItLostAndWaitsForApproval()
      throws Exception {
    dataDir = work.resolve("data");
    Path backup = work.resolve("backup");
    String kept;
    String doomed;
    try (ServerProcess first = ServerProcess.start(dataDir, Map.of())) {
      Api api = new Api(first.baseUrl(), ServerProcess.ADMIN_TOKEN);
      kept = api.create("kept");
      doomed = api.create("doomed");
    }
    copyStore(dataDir, backup);

    String bornLater;
    try (ServerProcess second = ServerProcess.start(dataDir, Map.of())) {
      Api api = new Api(second.baseUrl(), ServerProcess.ADMIN_TOKEN);
      bornLater = api.create("born-later");
      assertThat(api.delete("/sessions/" + doomed).status()).isIn(200, 202, 204);
      await()
          .atMost(CONVERGE)
          .until(() -> api.deleted(doomed).path("phase").asString().equals("TERMINATED"));
    }
    List<String> hostedBefore = runtimeNames();
    copyStore(backup, dataDir);

    try (ServerProcess restored = ServerProcess.start(dataDir, Map.of())) {
      Api api = new Api(restored.baseUrl(), ServerProcess.ADMIN_TOKEN);
      JsonNode found = api.get("/admin/recovery").json();
      System.out.println("GET /admin/recovery after the restore: " + found.toPrettyString());

      assertThat(found.path("active").asBoolean()).isTrue();
      assertThat(found.path("reason").asString()).contains("node saw");
      assertThat(strings(found.path("quarantinedRuntimes")))
          .as("the runtime of the session created after the backup")
          .containsExactly(runtimeOf(hostedBefore, bornLater));
      assertThat(strings(found.path("unreachableSessions")))
          .as("the session whose runtime was removed after the backup")
          .contains(doomed);
      assertThat(runtimeNames()).as("nothing deleted on the node").isEqualTo(hostedBefore);
      Api.Answer refused = api.post("/sessions?wait=false", "{\"name\":\"refused\"}");
      assertThat(refused.status()).isEqualTo(503);
      assertThat(refused.reason()).isEqualTo("RECOVERY_MODE");

      Api.Answer approved = api.post("/admin/recovery/approve", "{}");
      assertThat(approved.status()).as(approved.body()).isEqualTo(200);
      assertThat(approved.json().path("active").asBoolean()).isFalse();

      String afterwards = api.create("afterwards");
      api.write(afterwards, "echo normal-$((6*7))\n");
      await().atMost(CONVERGE).until(() -> api.text(afterwards, 0).contains("normal-42"));
      assertThat(api.get("/sessions/" + kept).json().path("phase").asString()).isEqualTo("READY");
      assertThat(runtimeNames())
          .as("the quarantined runtime stays after approval")
          .contains(runtimeOf(hostedBefore, bornLater));
    }
  }

  private List<String> runtimeNames() {
    return ServerProcess.nodeRuntimes(dataDir).stream()
        .map(r -> r.path("runtime").asString())
        .sorted()
        .toList();
  }

  private static String runtimeOf(List<String> runtimes, String session) {
    return runtimes.stream()
        .filter(r -> r.contains(session))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no runtime of " + session + " in " + runtimes));
  }

  private static List<String> strings(JsonNode array) {
    return array.valueStream().map(JsonNode::asString).toList();
  }

  /** The SQLite store of a stopped server: its file and any write-ahead log beside it. */
  private static void copyStore(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(to)) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("berth.db")).toList()) {
        Files.delete(f);
      }
    }
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("berth.db")).toList()) {
        Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }
}
