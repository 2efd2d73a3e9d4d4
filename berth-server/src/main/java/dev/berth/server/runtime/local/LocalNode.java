package dev.berth.server.runtime.local;

import dev.berth.protocol.files.PrivateFiles;
import dev.berth.protocol.node.NodeFiles;
import dev.berth.protocol.node.NodeInfo;
import dev.berth.protocol.node.NodeToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane's handle on the local node: finds the node that serves the state directory, or
 * starts one as a detached process of its own (its own session, through {@code setsid}, with its
 * output in {@code node.log}), so that the control plane exiting — even by SIGKILL or a terminal's
 * Ctrl-C — never takes the sessions with it. The node is found again only when its process is gone
 * or a call to it failed: a restarted node listens on a new port. The state directory and {@code
 * node.log} are created private (0700, 0600) here, before the node starts: this process opens the
 * log for the node's output, and would otherwise create it with the umask's mode.
 */
public final class LocalNode {

  private static final Logger LOG = LoggerFactory.getLogger(LocalNode.class);

  private final Path stateDirectory;
  private final List<String> launchCommand;
  private final Duration startTimeout;
  private final Map<String, String> environment;
  private final HttpClient http;

  /**
   * @param stateDirectory the node's state directory
   * @param launchCommand the command that runs a node on a directory given as its last argument
   */
  public LocalNode(Path stateDirectory, List<String> launchCommand, Duration startTimeout) {
    this(stateDirectory, launchCommand, startTimeout, System.getenv());
  }

  /**
   * As the public constructor, with {@code environment} standing for this process's environment, of
   * which the node is started with only {@link #NODE_ENVIRONMENT}.
   */
  LocalNode(
      Path stateDirectory,
      List<String> launchCommand,
      Duration startTimeout,
      Map<String, String> environment) {
    this.stateDirectory = stateDirectory.toAbsolutePath();
    this.launchCommand = List.copyOf(launchCommand);
    this.startTimeout = Objects.requireNonNull(startTimeout, "startTimeout");
    this.environment = Map.copyOf(environment);
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  }

  /**
   * The node's heap limit unless {@code BERTH_NODE_JAVA_OPTS} says otherwise: a node serves every
   * session on the machine, so its memory must have a bound that no session or client can push it
   * past. Its own needs are small (reads and streams hold a few buffers each); 512 MiB leaves room
   * for many concurrent sessions and clients.
   */
  public static final List<String> DEFAULT_NODE_JAVA_OPTIONS = List.of("-Xmx512m");

  /** The environment variable whose options are added after {@link #DEFAULT_NODE_JAVA_OPTIONS}. */
  public static final String NODE_JAVA_OPTIONS_VARIABLE = "BERTH_NODE_JAVA_OPTS";

  /** As {@link #javaLaunchCommand(List)} with the default options only. */
  public static List<String> javaLaunchCommand() {
    return javaLaunchCommand(List.of());
  }

  /**
   * The command that runs {@code dev.berth.agent.node.NodeMain} with this JVM's java and classpath,
   * which is what both the {@code berth} distribution and the tests have: the default options
   * ({@link #DEFAULT_NODE_JAVA_OPTIONS}), then {@code extraOptions}, so that an {@code -Xmx} among
   * them wins (the JVM takes the last one).
   */
  public static List<String> javaLaunchCommand(List<String> extraOptions) {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-XX:+UseSerialGC");
    command.add("-Xss512k");
    command.addAll(DEFAULT_NODE_JAVA_OPTIONS);
    command.addAll(extraOptions);
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), "dev.berth.agent.node.NodeMain"));
    return List.copyOf(command);
  }

  /**
   * The options of {@code BERTH_NODE_JAVA_OPTS}: its value split at whitespace (no quoting, as a
   * shell's unquoted {@code $JAVA_OPTS}); none when it is unset or blank.
   */
  public static List<String> javaOptions(Optional<String> value) {
    return value
        .map(String::strip)
        .filter(v -> !v.isEmpty())
        .map(v -> List.of(v.split("\\s+")))
        .orElse(List.of());
  }

  public Path stateDirectory() {
    return stateDirectory;
  }

  /**
   * The variables of the server's environment a node is started with (those that are set): where
   * programs are (the node finds its sandbox tools on {@code PATH}) and the user's locale, time
   * zone and temporary directory. Nothing else reaches it: not the admin token, a database's
   * password, a provider's key (the node gets the one an agent runtime needs over its authenticated
   * API), where anything running as the node's user could read them in {@code /proc/<pid>/environ}.
   * An allowlist, so that a secret added to the server's settings later is kept from the node
   * without anyone remembering to.
   */
  static final List<String> NODE_ENVIRONMENT =
      List.of("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR");

  /** Of {@code server}'s variables, those the node is started with. */
  static Map<String, String> nodeEnvironment(Map<String, String> server) {
    Map<String, String> node = new LinkedHashMap<>();
    for (String name : NODE_ENVIRONMENT) {
      String value = server.get(name);
      if (value != null) {
        node.put(name, value);
      }
    }
    return node;
  }

  /** Where the node answers and with which token. */
  public record Connection(String baseUrl, String token, long pid) {}

  /*
   * Every agent call goes through here, and reading two files and probing /healthz for each cost
   * more than the call itself (it was once per call, then once per two seconds, which under twenty
   * clients still took a twentieth of the control plane's CPU). A node that restarts has a new pid,
   * so it is found at once; one that hangs fails its calls, and a failed call forgets it.
   */
  // Read without the lock on the hot path; replaced whole under it.
  private volatile @Nullable Cached cached;

  private record Cached(Connection connection) {}

  /** The running node, started first when none answers. */
  public Connection ensureRunning() {
    Connection known = living(cached);
    if (known != null) {
      return known;
    }
    synchronized (this) {
      // Another caller may have found it while this one waited for the lock.
      Connection found = living(cached);
      if (found != null) {
        return found;
      }
      Optional<Connection> running = find();
      Connection connection = running.isPresent() ? running.get() : launch();
      cached = new Cached(connection);
      return connection;
    }
  }

  private static @Nullable Connection living(@Nullable Cached known) {
    if (known == null) {
      return null;
    }
    boolean alive =
        ProcessHandle.of(known.connection().pid()).map(ProcessHandle::isAlive).orElse(false);
    return alive ? known.connection() : null;
  }

  /** Forgets the connection: the next call finds the node again (a call to it failed). */
  public void forget() {
    cached = null;
  }

  /** The running node, if one answers; never starts one. */
  public synchronized Optional<Connection> find() {
    Optional<NodeInfo> info = NodeInfo.read(stateDirectory);
    if (info.isEmpty() || !info.get().processAlive()) {
      return Optional.empty();
    }
    String token = NodeToken.readOrCreate(stateDirectory);
    Connection connection = new Connection(info.get().baseUrl(), token, info.get().pid());
    return healthy(connection) ? Optional.of(connection) : Optional.empty();
  }

  private Connection launch() {
    try {
      PrivateFiles.createDirectories(stateDirectory);
      // The token exists before the node starts, so both sides read the same file.
      NodeToken.readOrCreate(stateDirectory);
      Optional<NodeInfo> before = NodeInfo.read(stateDirectory);
      List<String> command = new ArrayList<>();
      if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
        command.add("/usr/bin/setsid");
      }
      command.addAll(launchCommand);
      command.add(stateDirectory.toString());
      Path log = stateDirectory.resolve(NodeFiles.LOG);
      PrivateFiles.createFileIfMissing(log);
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .redirectErrorStream(true);
      builder.environment().clear();
      builder.environment().putAll(nodeEnvironment(environment));
      Process process = builder.start();
      LOG.info("started berth node (pid {}) on {}", process.pid(), stateDirectory);
      return awaitReady(process, before);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a berth node on " + stateDirectory, e);
    }
  }

  private Connection awaitReady(Process process, Optional<NodeInfo> before) {
    Instant deadline = Instant.now().plus(startTimeout);
    long previousPid = before.map(NodeInfo::pid).orElse(-1L);
    while (Instant.now().isBefore(deadline)) {
      Optional<Connection> found = find();
      if (found.isPresent() && found.get().pid() != previousPid) {
        return found.get();
      }
      if (!process.isAlive()) {
        // It may have lost the race to another node on the same directory: use that one.
        Optional<Connection> other = find();
        if (other.isPresent()) {
          return other.get();
        }
        throw new IllegalStateException(
            "berth node on "
                + stateDirectory
                + " exited with "
                + process.exitValue()
                + " while starting; see "
                + stateDirectory.resolve(NodeFiles.LOG));
      }
      sleep(Duration.ofMillis(50));
    }
    throw new IllegalStateException(
        "berth node on "
            + stateDirectory
            + " did not answer within "
            + startTimeout
            + "; see "
            + stateDirectory.resolve(NodeFiles.LOG));
  }

  private boolean healthy(Connection connection) {
    try {
      HttpResponse<Void> response =
          http.send(
              HttpRequest.newBuilder(URI.create(connection.baseUrl() + "/healthz"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return response.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the berth node", e);
    }
  }
}
