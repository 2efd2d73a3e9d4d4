package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, "Files of the platform are private", against the real {@code bin/berth}: after a
 * session ran a shell and an execution, was snapshotted and restored, nothing in the data directory
 * is open to group or others except what the sessions' workloads own (their {@code home}, {@code
 * tmp} and {@code shell-state}); the credentials {@code berth login} saves are private too; and a
 * server refuses a data directory that others may enter, saying how to fix it.
 */
class PrivateFilesIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final Set<String> WORKLOAD = Set.of("home", "tmp", "shell-state");

  @TempDir Path work;
  private Path dataDir;
  private ServerProcess server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (dataDir != null) {
      ServerProcess.killNode(dataDir);
    }
  }

  @Test
  void nothingInTheDataDirectoryButTheWorkloadsOwnFilesIsOpenToGroupOrOthers() throws Exception {
    dataDir = work.resolve("data");
    server = ServerProcess.start(dataDir, Map.of());
    Api api = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
    String id = api.create("private");
    api.write(id, "echo kept > ~/file.txt; echo ready-$((1+1))\n");
    await().atMost(CONVERGE).until(() -> api.text(id, 0).contains("ready-2"));
    Api.Answer execution =
        api.post("/sessions/" + id + "/executions", "{\"command\":\"echo exec-$((6*7))\"}");
    assertThat(execution.status()).as(execution.body()).isEqualTo(201);

    Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    assertThat(snapshot.json().path("state").asString()).isEqualTo("snapshot");
    assertThat(exposed(dataDir)).as("after the snapshot").isEmpty();
    assertThat(archives(dataDir)).as("the snapshot's archive is in the walk").isNotEmpty();

    Api.Answer restored = api.post("/sessions/" + id + "/read", "{\"offset\":0}");
    assertThat(restored.status()).as(restored.body()).isEqualTo(200);
    api.write(id, "cat ~/file.txt; echo done-$((2+3))\n");
    await().atMost(CONVERGE).until(() -> api.text(id, 0).contains("done-5"));

    assertThat(exposed(dataDir)).as("after the restore").isEmpty();
    assertThat(names(dataDir))
        .as("the walk reached the node's per-session files")
        .contains("contract.json", "runtime.json", "output.lock", "node.json", "installation.id");
    assertThat(mode(dataDir)).isEqualTo("rwx------");
    for (String file : List.of("berth.db", "berth.db-wal", "node/node.token", "node/node.log")) {
      assertThat(mode(dataDir.resolve(file))).as(file).isEqualTo("rw-------");
    }
    assertCliCredentialsPrivate(server.baseUrl());
  }

  /** {@code berth login} saves the token in a 0600 file in a 0700 directory it creates. */
  private void assertCliCredentialsPrivate(String url) throws Exception {
    Path config = work.resolve("config");
    Process login =
        berth(Map.of("XDG_CONFIG_HOME", config.toString()))
            .command(berthPath(), "login", "--url", url, "--token", ServerProcess.ADMIN_TOKEN)
            .start();
    assertThat(login.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(login.exitValue()).as(Files.readString(work.resolve("cli.log"))).isZero();

    Path credentials = config.resolve("berth").resolve("credentials");
    assertThat(mode(config.resolve("berth"))).isEqualTo("rwx------");
    assertThat(mode(credentials)).isEqualTo("rw-------");
  }

  @Test
  void aServerRefusesADataDirectoryOthersMayEnterAndSaysHowToFixIt() throws Exception {
    dataDir = work.resolve("open");
    Files.createDirectory(dataDir);
    Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxr-xr-x"));

    assertThatThrownBy(() -> ServerProcess.start(dataDir, Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exited with 1");

    String log = Files.readString(work.resolve("open.log"));
    assertThat(log)
        .contains("berth: data directory " + dataDir + " has mode rwxr-xr-x (0755)")
        .contains("group and others must have no access")
        .contains("run: chmod 700 " + dataDir);
    try (Stream<Path> files = Files.list(dataDir)) {
      assertThat(files).as("nothing was written into it").isEmpty();
    }
    dataDir = null;
  }

  /** Each path under {@code root} that group or others may reach, with its mode. */
  private static List<String> exposed(Path root) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.toList()) {
        Path relative = root.relativize(path);
        if (workloads(relative) || Files.isSymbolicLink(path)) {
          continue;
        }
        String mode =
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
        if (!mode.endsWith("------")) {
          found.add(relative + " " + mode);
        }
      }
    }
    return found;
  }

  /** Whether the path is a session's home, tmp or shell-state, or inside one. */
  private static boolean workloads(Path relative) {
    for (int i = 1; i < relative.getNameCount(); i++) {
      String parent = relative.getName(i - 1).toString();
      boolean inState = parent.equals("state") || parent.startsWith(".state.restore-");
      if (inState && WORKLOAD.contains(relative.getName(i).toString())) {
        return true;
      }
    }
    return false;
  }

  /** The names of the regular files under {@code root}. */
  private static Set<String> names(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      return paths
          .filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .map(p -> p.getFileName().toString())
          .collect(java.util.stream.Collectors.toSet());
    }
  }

  private static List<Path> archives(Path dataDir) throws IOException {
    try (Stream<Path> paths = Files.walk(dataDir.resolve("archives"))) {
      return paths.filter(p -> p.toString().endsWith(".tar.zst")).toList();
    }
  }

  private static String mode(Path path) {
    try {
      return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private ProcessBuilder berth(Map<String, String> env) {
    ProcessBuilder builder =
        new ProcessBuilder()
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("cli.log").toFile()));
    builder.environment().putAll(env);
    return builder;
  }

  private static String berthPath() {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("bin/berth"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "bin/berth not found above " + System.getProperty("user.dir"));
    }
    return dir.resolve("bin/berth").toString();
  }
}
