package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Snapshot and restore through the public API against the real server, node and shell: what a shell
 * had (its environment, working directory, files, aliases, functions) is back after the restore
 * into a new runtime, and cursors taken before the snapshot stay valid.
 */
class SnapshotRestoreIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);

  @TempDir static Path work;
  private static ServerProcess server;
  private static Api api;

  @BeforeAll
  static void startServer() {
    server = ServerProcess.start(work.resolve("data"), Map.of());
    api = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
  }

  @AfterAll
  static void stopServer() {
    server.close();
    ServerProcess.killNode(work.resolve("data"));
  }

  @Test
  void whatTheShellHadSurvivesSnapshotAndRestoreAndOldCursorsReadExactlyTheNewBytes() {
    String id = api.create("keeper");
    String dir = "/tmp/x-" + id.substring(0, 8);
    api.write(
        id,
        "export MARKER=42; mkdir -p "
            + dir
            + "; cd "
            + dir
            + "; echo kept > ~/file.txt; alias ll='echo alias-works'; greet() { echo hello-$1; };"
            + " echo ready-$((1+1))\n");
    await().atMost(CONVERGE).until(() -> api.text(id, 0).contains("ready-2"));
    String runtimeBefore = api.get("/sessions/" + id).json().path("pod").asString();
    long cursor = readEnd(id, "active");

    Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    JsonNode frozen = snapshot.json();
    assertThat(frozen.path("state").asString()).isEqualTo("snapshot");
    assertThat(frozen.path("pod").isMissingNode()).isTrue();
    assertThat(frozen.path("archive").path("contents").toString()).contains("home");
    assertThat(api.post("/sessions/" + id + "/snapshot", "").status())
        .as("a snapshot of a snapshot is a no-op")
        .isEqualTo(200);
    assertThat(api.get("/sessions/" + id + "/stream").status())
        .as("the passive stream never restores")
        .isEqualTo(422);
    assertThat(readEnd(id, "snapshot->restore->read")).isGreaterThanOrEqualTo(cursor);

    JsonNode session = api.get("/sessions/" + id).json();
    assertThat(session.path("state").asString()).isEqualTo("active");
    assertThat(session.path("pod").asString()).isNotEqualTo(runtimeBefore);

    api.write(id, "echo m=$MARKER; pwd; cat ~/file.txt; ll; greet x\n");
    await().atMost(CONVERGE).until(() -> api.text(id, cursor).contains("hello-x"));
    String after = api.text(id, cursor);
    assertThat(after)
        .contains("m=42")
        .contains(dir)
        .contains("kept")
        .contains("alias-works")
        .contains("hello-x")
        .doesNotContain("ready-2");
    assertThat(api.text(id, 0)).contains("ready-2").contains("session restored");
  }

  @Test
  void aTreeARestoreWouldRefuseIsRefusedAtSnapshotAndWhatAnArchiveLeavesOutIsListed() {
    String id = api.create("limits");
    // One more entry than a restore accepts (200,000): refused now, not discovered at restore.
    assertThat(
            Shell.run(api, id, "mkdir ~/many && cd ~/many && seq 200001 | xargs touch && echo made")
                .output())
        .isEqualTo("made\n");

    Api.Answer refused = api.post("/sessions/" + id + "/snapshot", "{}");

    assertThat(refused.status()).as(refused.body()).isEqualTo(422);
    assertThat(refused.reason()).isEqualTo("SNAPSHOT_REFUSED");
    assertThat(refused.json().path("detail").asString()).contains("200000", "snapshot again");
    JsonNode session = api.get("/sessions/" + id).json();
    assertThat(session.path("state").asString()).isEqualTo("active");
    assertThat(session.path("phase").asString()).isEqualTo("READY");
    assertThat(Shell.run(api, id, "echo still-$((6*7))").output())
        .as("the session stays active and its shell answers")
        .isEqualTo("still-42\n");

    Shell.run(api, id, "cd ~ && rm -rf ~/many && mkfifo ~/pipe");
    Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "{}");

    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    JsonNode skipped = snapshot.json().path("archive").path("skipped");
    assertThat(skipped.toString()).contains("\"path\":\"home/pipe\"", "\"reason\":\"fifo\"");
    api.delete("/sessions/" + id);
  }

  @Test
  void aVirtualEnvironmentWithItsAbsolutePythonLinkSurvivesSnapshotAndRestoreAndRuns() {
    String id = api.create("venv");
    assertThat(
            Shell.run(
                    api,
                    id,
                    "/usr/bin/python3 -m venv --without-pip ~/venv && readlink ~/venv/bin/python3")
                .output())
        .isEqualTo("/usr/bin/python3\n");

    Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    assertThat(snapshot.json().path("archive").path("skipped").toString()).doesNotContain("venv");

    // The first access restores it into a new runtime.
    assertThat(
            Shell.run(
                    api,
                    id,
                    "readlink ~/venv/bin/python3; ~/venv/bin/python -c 'import sys;"
                        + " print(sys.prefix != sys.base_prefix, sys.prefix.endswith(\"/venv\"))'")
                .output())
        .isEqualTo("/usr/bin/python3\nTrue True\n");
    api.delete("/sessions/" + id);
  }

  @Test
  void aDeletedSessionIsRecoveredFromItsLastArchiveAsANewSession() {
    String id = api.create("phoenix");
    api.write(id, "echo phoenix-$((3*3)) > ~/note.txt\n");
    await().atMost(CONVERGE).until(() -> api.text(id, 0).contains("note.txt"));
    assertThat(api.post("/sessions/" + id + "/snapshot", "").status()).isEqualTo(200);
    assertThat(api.delete("/sessions/" + id).status()).isEqualTo(204);

    Api.Answer recovered = api.post("/sessions/" + id + "/recover", "");
    assertThat(recovered.status()).as(recovered.body()).isEqualTo(201);
    String heir = recovered.json().path("id").asString();
    assertThat(heir).isNotEqualTo(id);
    assertThat(recovered.json().path("state").asString()).isEqualTo("snapshot");
    assertThat(recovered.json().path("name").asString()).isEqualTo("phoenix");
    Api.Answer again = api.post("/sessions/" + id + "/recover", "");
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.reason()).isEqualTo("ALREADY_RECOVERED");

    api.write(heir, "cat ~/note.txt\n");
    await().atMost(CONVERGE).until(() -> api.text(heir, 0).contains("phoenix-9"));
  }

  @Test
  void aSessionNeverSuspendedCannotBeRecoveredAndALiveOneIsNotDeleted() {
    String id = api.create("ephemeral");
    Api.Answer alive = api.post("/sessions/" + id + "/recover", "");
    assertThat(alive.status()).isEqualTo(409);
    assertThat(alive.reason()).isEqualTo("INVALID_STATE");
    assertThat(api.delete("/sessions/" + id).status()).isEqualTo(204);
    Api.Answer gone = api.post("/sessions/" + id + "/recover", "");
    assertThat(gone.status()).isEqualTo(410);
    assertThat(gone.reason()).isEqualTo("NOT_RECOVERABLE");
  }

  /** The end of the session's output, read by a read that took {@code path}. */
  private static long readEnd(String id, String path) {
    Api.Answer read = api.post("/sessions/" + id + "/read", "{\"offset\":0}");
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().path("path").asString()).isEqualTo(path);
    return read.json().path("nextOffset").asLong();
  }
}
