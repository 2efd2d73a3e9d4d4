package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.archive.ArchiveIdentity;
import dev.berth.agent.archive.ArchiveWriter;
import dev.berth.agent.host.HostConfig;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.SessionId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The second half of a resume through the agent API: a runtime provisioned to await an archive runs
 * nothing until the archive of a checkpoint is posted to it, then its real shell comes back with
 * what the checkpointed one had, and the output continues where it stopped.
 */
class RestoreThroughAgentApiTest {

  private static final String TOKEN = "r".repeat(64);
  private static final String SID = "decade" + "0".repeat(26);
  private static final String FIRST = "berth-" + SID + "-1";
  private static final String SECOND = "berth-" + SID + "-2";
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String RESTORED_LINE =
      "[berth] session restored; running processes were not preserved";

  @TempDir Path root;
  @TempDir Path elsewhere;
  @TempDir Path scratch;
  private RunningHost running;
  private AgentApi api;
  private RunningHost second;
  private Path hostTmpDir;

  @BeforeEach
  void startHost() {
    running = RunningHost.start(HostConfig.defaults(root, TOKEN));
    api = running.api();
  }

  @AfterEach
  void stopHosts() throws IOException {
    if (second != null) {
      second.close();
    }
    running.close();
    // Without bwrap the shell's /tmp is the host's.
    if (hostTmpDir != null && Files.isDirectory(hostTmpDir)) {
      Files.delete(hostTmpDir);
    }
  }

  @Test
  void aRestoredShellGetsBackWhatTheCheckpointedOneHadAndItsOutputGoesOnWhereItStopped() {
    String dir = "/tmp/berth-restore-" + (100_000 + ThreadLocalRandom.current().nextInt(800_000));
    hostTmpDir = Path.of(dir);
    assertThat(api.provision(SID, 1).status()).isEqualTo(201);
    api.input(
        SID,
        "export MARKER=42; mkdir -p "
            + dir
            + "; cd "
            + dir
            + "; echo hi > ~/file.txt; alias ll='ls -l'; greet() { echo hello-$1; }\n");
    api.input(SID, "echo ready-$((40+2))\n");
    await().atMost(WAIT).until(() -> api.text(SID, 0).contains("ready-42"));
    long cursor = api.end(SID);
    api.input(SID, "echo between-$((1+2))\n");
    await().atMost(WAIT).until(() -> api.text(SID, cursor).contains("between-3"));

    AgentApi.Bytes archive = api.checkpoint(SID, 1, command(2, OperationType.SUSPEND));
    assertThat(archive.status()).as(archive.text()).isEqualTo(200);
    byte[] checkpointedTail = api.bytes(SID, cursor);
    assertThat(api.send("DELETE", "/v1/sessions/" + SID + "?runtime=" + FIRST, null).status())
        .isEqualTo(204);
    second = RunningHost.start(HostConfig.defaults(elsewhere, TOKEN));
    AgentApi there = second.api();
    assertThat(there.provision(SID, 2, true).status()).isEqualTo(201);

    AgentApi.Answer restored =
        there.restore(SID, SECOND, 1, archive.body(), command(3, OperationType.RESUME));

    assertThat(restored.status()).as(restored.body()).isEqualTo(200);
    JsonNode answer = restored.json();
    assertThat(answer.path("runtime").asString()).isEqualTo(SECOND);
    assertThat(answer.path("generation").asLong()).isEqualTo(1);
    assertThat(answer.path("bytes").asLong()).isEqualTo(archive.body().length);
    assertThat(answer.path("files").asLong()).isPositive();
    long end = answer.path("output").path("nextOffset").asLong();
    assertThat(end).isBetween(cursor, cursor + checkpointedTail.length);
    assertThat(there.status(SID).path("state").asString()).isEqualTo("running");

    there.input(
        SID,
        "echo \"m=$MARKER\"; pwd; cat ~/file.txt; type ll; ll -d .; greet x; echo done-$((2+3))\n");
    await().atMost(WAIT).until(() -> there.text(SID, end).contains("done-5"));

    JsonNode read = there.read(SID, cursor);
    assertThat(read.path("offset").asLong()).isEqualTo(cursor);
    assertThat(read.path("reset").asBoolean()).isFalse();
    byte[] sinceCursor = there.bytes(SID, cursor);
    int checkpointed = (int) (end - cursor);
    assertThat(Arrays.copyOf(sinceCursor, checkpointed))
        .as("the checkpointed output keeps its offsets")
        .isEqualTo(Arrays.copyOf(checkpointedTail, checkpointed));
    assertThat(new String(sinceCursor, 0, checkpointed, StandardCharsets.UTF_8))
        .contains("between-3");
    assertThat(there.text(SID, 0)).contains("ready-42");
    String appended =
        new String(
            Arrays.copyOfRange(sinceCursor, checkpointed, sinceCursor.length),
            StandardCharsets.UTF_8);
    assertThat(appended)
        .as("what the restored shell appended after it")
        .contains(RESTORED_LINE)
        .contains("m=42")
        .contains("\n" + dir)
        .contains("hi")
        .contains("ll is aliased to `ls -l'")
        .containsPattern("d[rwx-]{9}")
        .contains("hello-x");
  }

  @Test
  void aRuntimeAwaitingItsArchiveRunsNothingAndRefusesInputAsRestoring() {
    AgentApi.Answer provisioned = api.provision(SID, 2, true);

    assertThat(provisioned.status()).as(provisioned.body()).isEqualTo(201);
    JsonNode status = api.status(SID);
    assertThat(status.path("state").asString()).isEqualTo("awaiting-restore");
    assertThat(status.path("shell").has("pid")).isFalse();
    assertThat(status.path("output").path("nextOffset").asLong()).isZero();
    AgentApi.Answer input = api.input(SID, "echo too-early\n");
    assertThat(input.status()).isEqualTo(409);
    assertThat(input.json().path("reason").asString()).isEqualTo("RESTORING");
    assertThat(input.json().path("detail").asString()).contains("retry once the restore is done");
    AgentApi.Answer read = api.send("GET", "/v1/sessions/" + SID + "/output?offset=0", null);
    assertThat(read.status()).isEqualTo(409);
    assertThat(read.json().path("reason").asString()).isEqualTo("RESTORING");
    AgentApi.Answer execution = api.startExecution(SID, "{\"command\":\"true\"}");
    assertThat(execution.status()).isEqualTo(409);
    assertThat(execution.json().path("reason").asString()).isEqualTo("RESTORING");
    assertThat(stateDirectory()).isDirectoryNotContaining(p -> !p.endsWith("home"));
  }

  @Test
  void aHostileArchiveIsRefusedWithItsReasonAndTheRuntimeStillAwaitsWithItsStateUntouched()
      throws IOException {
    assertThat(api.provision(SID, 2, true).status()).isEqualTo(201);
    List<String> before = tree(runtimeDirectory());

    AgentApi.Answer unsafe =
        api.restore(SID, SECOND, 1, hostile("dotdot-traversal"), command(3, OperationType.RESUME));
    AgentApi.Answer corrupt =
        api.restore(SID, SECOND, 1, hostile("garbage-bytes"), command(3, OperationType.RESUME));

    assertThat(unsafe.status()).as(unsafe.body()).isEqualTo(422);
    assertThat(unsafe.json().path("reason").asString()).isEqualTo("ARCHIVE_UNSAFE");
    assertThat(corrupt.status()).as(corrupt.body()).isEqualTo(422);
    assertThat(corrupt.json().path("reason").asString()).isEqualTo("ARCHIVE_CORRUPT");
    assertThat(api.status(SID).path("state").asString()).isEqualTo("awaiting-restore");
    assertThat(tree(runtimeDirectory())).as("no staging left, state/ as it was").isEqualTo(before);
    AgentApi.Answer good =
        api.restore(SID, SECOND, 1, archiveOf(1), command(3, OperationType.RESUME));
    assertThat(good.status()).as("a refusal records nothing: " + good.body()).isEqualTo(200);
  }

  @Test
  void anArchiveOfAnotherGenerationIsRefusedAsCorrupt() throws IOException {
    assertThat(api.provision(SID, 2, true).status()).isEqualTo(201);

    AgentApi.Answer refused =
        api.restore(SID, SECOND, 2, archiveOf(1), command(3, OperationType.RESUME));

    assertThat(refused.status()).as(refused.body()).isEqualTo(422);
    assertThat(refused.json().path("reason").asString()).isEqualTo("ARCHIVE_CORRUPT");
    assertThat(api.status(SID).path("state").asString()).isEqualTo("awaiting-restore");
  }

  @Test
  void aRestoreOfAStaleIntentIsRefusedAndRestoresNothing() throws IOException {
    assertThat(api.provision(SID, 2, true).status()).isEqualTo(201);
    assertThat(api.lease(SID, 60, command(5, OperationType.RESUME)).status()).isEqualTo(200);

    AgentApi.Answer stale =
        api.restore(SID, SECOND, 1, archiveOf(1), command(4, OperationType.RESUME));

    assertThat(stale.status()).as(stale.body()).isEqualTo(409);
    assertThat(stale.json().path("reason").asString()).isEqualTo("STALE_INTENT");
    assertThat(stale.json().path("acceptedIntentVersion").asLong()).isEqualTo(5);
    assertThat(api.status(SID).path("state").asString()).isEqualTo("awaiting-restore");
    assertThat(stateDirectory().resolve("home").resolve("restored.txt")).doesNotExist();
  }

  @Test
  void aRepeatedRestoreAnswersAsTheFirstAndAnotherOperationFindsTheRuntimeRunning()
      throws IOException {
    assertThat(api.provision(SID, 2, true).status()).isEqualTo(201);
    byte[] archive = archiveOf(1);
    AgentApi.Command resume = command(3, OperationType.RESUME);

    AgentApi.Answer first = api.restore(SID, SECOND, 1, archive, resume);
    AgentApi.Answer repeated = api.restore(SID, SECOND, 1, archive, resume);
    AgentApi.Answer another =
        api.restore(SID, SECOND, 1, archive, command(4, OperationType.RESUME));

    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(repeated.status()).isEqualTo(200);
    assertThat(repeated.json()).isEqualTo(first.json());
    assertThat(another.status()).as(another.body()).isEqualTo(409);
    assertThat(another.json().path("reason").asString()).isEqualTo("CONFLICT");
    assertThat(another.json().path("detail").asString()).contains("is running");
    long pid = api.status(SID).path("shell").path("pid").asLong();
    assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("one shell").isPresent();
    assertThat(stateDirectory().resolve("home").resolve("restored.txt")).hasContent("from-archive");
  }

  @Test
  void aRuntimeStillAwaitingItsArchiveWhenTheHostRestartedAwaitsItAgain() throws IOException {
    assertThat(api.provision(SID, 2, true).status()).isEqualTo(201);
    running.close();
    running = RunningHost.start(HostConfig.defaults(root, TOKEN));
    api = running.api();
    assertThat(api.status(SID).path("state").asString()).isEqualTo("awaiting-restore");

    AgentApi.Answer restored =
        api.restore(SID, SECOND, 1, archiveOf(1), command(3, OperationType.RESUME));

    assertThat(restored.status()).as(restored.body()).isEqualTo(200);
    long cursor = restored.json().path("output").path("nextOffset").asLong();
    api.input(SID, "cat ~/restored.txt\n");
    await().atMost(WAIT).until(() -> api.text(SID, cursor).contains("from-archive"));
    running.close();
    running = RunningHost.start(HostConfig.defaults(root, TOKEN));
    api = running.api();
    JsonNode status = api.status(SID);
    assertThat(status.path("state").asString()).as("a runtime that ran").isEqualTo("stopped");
    assertThat(status.path("stopReason").asString()).isEqualTo("HOST_RESTARTED");
  }

  private Path runtimeDirectory() {
    return root.resolve("sessions").resolve(SID).resolve("runtimes").resolve(SECOND);
  }

  private Path stateDirectory() {
    return runtimeDirectory().resolve("volume").resolve("state");
  }

  /** A real archive of a small runtime state (no shell state: the shell starts fresh on it). */
  private byte[] archiveOf(long generation) throws IOException {
    Path state = scratch.resolve("state-" + generation);
    Files.createDirectories(state.resolve("home"));
    Files.writeString(state.resolve("home").resolve("restored.txt"), "from-archive");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ArchiveWriter.write(state, new ArchiveIdentity(SID, generation, Instant.now()), out);
    return out.toByteArray();
  }

  private static byte[] hostile(String name) {
    try (InputStream in =
        RestoreThroughAgentApiTest.class.getResourceAsStream(
            "/archives/hostile/" + name + ".tar.zst")) {
      if (in == null) {
        throw new IllegalStateException("no hostile archive " + name + " among the resources");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every path under {@code dir} with its size, to compare a tree before and after. */
  private static List<String> tree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths
          .map(p -> dir.relativize(p) + ":" + (Files.isRegularFile(p) ? size(p) : "dir"))
          .sorted()
          .toList();
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static AgentApi.Command command(long version, OperationType type) {
    return AgentApi.Command.of(version, OperationId.of(new SessionId(SID), type, version).value());
  }
}
