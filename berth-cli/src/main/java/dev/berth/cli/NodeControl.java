package dev.berth.cli;

import dev.berth.protocol.node.NodeInfo;
import dev.berth.protocol.node.NodeToken;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code berth node status} and {@code berth node stop}: the node the server started by itself
 * (detached, so that sessions outlive the server) is found through its state directory's {@code
 * node.json}, asked for its sessions with its {@code node.token}, and stopped with SIGTERM.
 */
final class NodeControl {

  /** The exit code of {@code status} when no node runs, as {@code systemctl status} has it. */
  static final int NOT_RUNNING = 3;

  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private NodeControl() {}

  /**
   * Where the node keeps its state: {@code --state-dir}, else the data directory's {@code node}.
   */
  abstract static class Located implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
        names = "--data-dir",
        paramLabel = "DIR",
        defaultValue = "${sys:user.home}/.berth",
        description =
            "The server's data directory, whose node/ the node keeps (default: ~/.berth).")
    Path dataDir;

    @Option(
        names = "--state-dir",
        paramLabel = "DIR",
        description = "The node's state directory, when it is not the data directory's node/.")
    @Nullable Path stateDir;

    Path stateDirectory() {
      return stateDir != null ? stateDir : dataDir.resolve("node");
    }

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    /**
     * The running node's record, or empty when none runs on the directory. A process with the
     * recorded pid that started after the node wrote its record is another one (the pid was
     * reused), not the node.
     */
    Optional<NodeInfo> running() {
      return NodeControl.running(stateDirectory());
    }

    /** How many sessions the node hosts, or empty when it does not answer. */
    Optional<Integer> sessions(NodeInfo node) {
      return NodeControl.sessions(stateDirectory(), node);
    }
  }

  /** The node running on {@code stateDir}, as {@link Located#running()} says. */
  static Optional<NodeInfo> running(Path stateDir) {
    return NodeInfo.read(stateDir)
        .filter(
            node ->
                ProcessHandle.of(node.pid())
                    .filter(ProcessHandle::isAlive)
                    .map(
                        process ->
                            process
                                .info()
                                .startInstant()
                                .map(started -> !started.isAfter(node.startedAt()))
                                .orElse(true))
                    .orElse(false));
  }

  /** How many sessions the node on {@code stateDir} hosts, or empty when it does not answer. */
  static Optional<Integer> sessions(Path stateDir, NodeInfo node) {
    Path tokenFile = stateDir.resolve(NodeToken.FILE);
    try {
      if (!Files.isRegularFile(tokenFile)) {
        return Optional.empty();
      }
      String token = Files.readString(tokenFile).strip();
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(node.baseUrl() + "/v1/sessions"))
              .timeout(Duration.ofSeconds(5))
              .header("Authorization", "Bearer " + token)
              .build();
      try (HttpClient http =
          HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
        HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
          return Optional.empty();
        }
        JsonNode body = JsonMapper.builder().build().readTree(answer.body());
        return Optional.of(body.path("sessions").size());
      }
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  static String count(Optional<Integer> sessions) {
    return sessions.map(n -> n + (n == 1 ? " session" : " sessions")).orElse("sessions unknown");
  }

  /** {@code berth node status}. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Says whether a node runs on the data directory, where, and how many sessions it hosts;"
              + " exits 3 when none runs.")
  static final class Status extends Located {
    @Override
    public Integer call() {
      Optional<NodeInfo> node = running();
      if (node.isEmpty()) {
        out().println("no node runs on " + stateDirectory());
        out().flush();
        return NOT_RUNNING;
      }
      NodeInfo info = node.get();
      out()
          .println(
              "node (pid "
                  + info.pid()
                  + ") on "
                  + info.baseUrl()
                  + " since "
                  + info.startedAt()
                  + ", "
                  + count(sessions(info))
                  + ", state in "
                  + stateDirectory());
      out().flush();
      return 0;
    }
  }

  /** {@code berth node stop [--force]}. */
  @Command(
      name = "stop",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Stops the node on the data directory (SIGTERM, then waits for it). While it hosts"
              + " sessions it refuses without --force: their shells end with it.")
  static final class Stop extends Located {
    @Option(
        names = "--force",
        description = "Stop it even though it hosts sessions (their shells end).")
    boolean force;

    @Override
    public Integer call() {
      out().println(stop(stateDirectory(), force, "stop it anyway with --force"));
      out().flush();
      return 0;
    }
  }

  /**
   * Stops the node on {@code stateDir} (SIGTERM, then waits for it) and says what happened. While
   * it hosts sessions (or does not say how many) it refuses unless {@code force}: their shells
   * would end with it.
   *
   * @param forcing how the caller stops it anyway, for the refusal's way out
   * @throws UsageException naming the sessions and the way out when it refuses, or when the node
   *     did not stop in time
   */
  static String stop(Path stateDir, boolean force, String forcing) {
    Optional<NodeInfo> node = running(stateDir);
    if (node.isEmpty()) {
      return "no node runs on " + stateDir + "; nothing to stop";
    }
    NodeInfo info = node.get();
    Optional<Integer> sessions = sessions(stateDir, info);
    if (!force && sessions.orElse(1) > 0) {
      throw new UsageException(
          "the node (pid "
              + info.pid()
              + ") hosts "
              + count(sessions)
              + ", whose shells would end with it; "
              + forcing
              + ", or delete the sessions first");
    }
    Optional<ProcessHandle> found = ProcessHandle.of(info.pid());
    if (found.isEmpty()) {
      return "node (pid " + info.pid() + ") stopped by itself meanwhile";
    }
    ProcessHandle process = found.get();
    process.destroy();
    if (!process
        .onExit()
        .completeOnTimeout(process, PATIENCE.toSeconds(), TimeUnit.SECONDS)
        .thenApply(p -> !p.isAlive())
        .join()) {
      throw new UsageException(
          "the node (pid "
              + info.pid()
              + ") did not stop within "
              + PATIENCE.toSeconds()
              + " s of SIGTERM; kill -9 "
              + info.pid()
              + " ends it (its sessions' disks may stay mounted)");
    }
    return "node (pid " + info.pid() + ") stopped";
  }
}
