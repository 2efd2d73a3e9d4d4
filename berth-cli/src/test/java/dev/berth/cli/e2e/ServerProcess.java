package dev.berth.cli.e2e;

import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The real distribution as a process: {@code bin/berth server} on a free loopback port, the way a
 * user starts it. Stopping it (or killing it with SIGKILL) leaves the node it started running, as
 * in production; {@link #killNode} ends that at the end of a test.
 */
final class ServerProcess implements AutoCloseable {

  static final String ADMIN_TOKEN = "e2e-admin-token-" + "x".repeat(32);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Process process;
  private final int port;

  private ServerProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts a server on {@code dataDir}; {@code env} adds variables such as BERTH_FAILPOINTS. */
  static ServerProcess start(Path dataDir, Map<String, String> env) {
    return start(dataDir, env, Launch.plain());
  }

  /**
   * How to start {@code bin/berth server}: the distribution's root, a launcher to run it through
   * (entering a cgroup and dropping to another user, say) and more server flags.
   */
  record Launch(Path root, List<String> launcher, List<String> serverArguments) {
    static Launch plain() {
      return new Launch(projectRoot(), List.of(), List.of());
    }

    Launch withArguments(String... arguments) {
      List<String> all = new java.util.ArrayList<>(serverArguments);
      all.addAll(List.of(arguments));
      return new Launch(root, launcher, all);
    }
  }

  /** Starts a server on {@code dataDir} as {@code launch} says; the data directory must exist. */
  static ServerProcess start(Path dataDir, Map<String, String> env, Launch launch) {
    int port = freePort();
    List<String> command = new java.util.ArrayList<>(launch.launcher());
    command.addAll(
        List.of(
            launch.root().resolve("bin/berth").toString(),
            "server",
            "--listen",
            "127.0.0.1:" + port,
            "--data-dir",
            dataDir.toString()));
    command.addAll(launch.serverArguments());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(
                    dataDir.resolveSibling(dataDir.getFileName() + ".log").toFile()));
    builder.environment().put("BERTH_ADMIN_TOKEN", ADMIN_TOKEN);
    builder.environment().remove("BERTH_FAILPOINTS");
    builder.environment().putAll(env);
    try {
      // Private, as the server requires of a data directory it did not create itself.
      PrivateFiles.createDirectories(dataDir);
      if (launch.launcher().isEmpty()) {
        // SQLite's native library, which a server extracts at start and removes only when it
        // exits normally, goes beside the data directory, which the test removes: a server killed
        // on purpose leaves nothing in /tmp. (A server run as another user is left as it is;
        // UnprivilegedUser removes what it leaves.)
        builder
            .environment()
            .merge(
                "BERTH_JAVA_OPTS",
                "-Dorg.sqlite.tmpdir=" + privateTemp(dataDir),
                (given, ours) -> ours + " " + given);
      }
      ServerProcess server = new ServerProcess(builder.start(), port);
      try {
        server.awaitHealthy();
      } catch (IllegalStateException e) {
        // The server's own words say why it did not start; the test's message carries them.
        Path log = dataDir.resolveSibling(dataDir.getFileName() + ".log");
        String said = Files.exists(log) ? Files.readString(log) : "(no log)";
        throw new IllegalStateException(
            e.getMessage() + "; its log ends: " + said.substring(Math.max(0, said.length() - 2000)),
            e);
      }
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start bin/berth server", e);
    }
  }

  /** {@code <data-dir>.tmp}, made once. */
  private static Path privateTemp(Path dataDir) throws IOException {
    return PrivateFiles.createDirectories(dataDir.resolveSibling(dataDir.getFileName() + ".tmp"));
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  Process process() {
    return process;
  }

  /** SIGKILL, and wait until the process is gone. */
  void kill() {
    process.destroyForcibly();
    awaitExit();
  }

  /** Waits until the process is gone (after a failpoint halted it, say). */
  void awaitExit() {
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the server did not exit");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroy();
      awaitExit();
    }
  }

  /** The node's own view: every runtime it hosts (through its API, with its token). */
  static List<JsonNode> nodeRuntimes(Path dataDir) {
    Path nodeDir = dataDir.resolve("node");
    JsonNode info = JSON.readTree(read(nodeDir.resolve("node.json")));
    String token = read(nodeDir.resolve("node.token")).strip();
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(
                    "http://"
                        + info.path("host").asString()
                        + ":"
                        + info.path("port").asInt()
                        + "/v1/sessions"))
            .header("Authorization", "Bearer " + token)
            .build();
    try {
      String body =
          HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body();
      return List.copyOf(JSON.readTree(body).path("sessions").valueStream().toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Ends the node a test's servers started (its sessions' shells end with it). */
  static void killNode(Path dataDir) {
    Path info = dataDir.resolve("node").resolve("node.json");
    if (!Files.exists(info)) {
      unmountDisksUnder(dataDir);
      return;
    }
    long pid = JSON.readTree(read(info)).path("pid").asLong();
    Optional<ProcessHandle> node = ProcessHandle.of(pid);
    node.ifPresent(
        handle -> {
          handle.destroy();
          handle.onExit().orTimeout(30, TimeUnit.SECONDS).join();
        });
    unmountDisksUnder(dataDir);
  }

  /**
   * Detaches the sessions' disks a node left mounted (one killed with SIGKILL leaves them), so that
   * the test's directory can be deleted. A node that stops unmounts its own; this is the net.
   */
  static void unmountDisksUnder(Path dataDir) {
    String under = dataDir.toAbsolutePath().normalize() + "/";
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        String[] fields = line.split(" ");
        if (fields.length > 4 && fields[4].startsWith(under)) {
          new ProcessBuilder("umount", "-l", fields[4])
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start()
              .waitFor(30, TimeUnit.SECONDS);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unmount the disks under " + dataDir, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitHealthy() {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("bin/berth server exited with " + process.exitValue());
      }
      try {
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(URI.create(baseUrl() + "/healthz")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    process.destroyForcibly();
    throw new IllegalStateException("bin/berth server did not answer /healthz within 60 s");
  }

  static Path projectRoot() {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("bin/berth"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "bin/berth not found above " + System.getProperty("user.dir"));
    }
    return dir;
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode readJson(Path file) {
    return JSON.readTree(read(file));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
