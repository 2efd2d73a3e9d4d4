package dev.berth.cli;

import dev.berth.agent.isolation.NetworkMode;
import dev.berth.agent.isolation.ResourceLimits;
import dev.berth.agent.isolation.SandboxBind;
import dev.berth.core.idle.IdleSettings;
import dev.berth.server.ArchiveChoice;
import dev.berth.server.BerthServer;
import dev.berth.server.RuntimeChoice;
import dev.berth.server.ServerConfig;
import dev.berth.server.StoreChoice;
import dev.berth.server.runtime.local.LocalNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code berth server}: runs the Berth server until the process is stopped. */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = "Runs the Berth server until it receives SIGTERM or SIGINT.")
final class ServerCommand implements Callable<Integer> {

  @Spec private CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "A YAML file of options: each key an option's long name without the dashes (idle-after:"
              + " 30m). An option given on the command line wins over its BERTH_* variable, which"
              + " wins over the file. Also BERTH_CONFIG.")
  private @Nullable Path config;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:8080",
      converter = ListenAddressConverter.class,
      description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  private ListenAddress listen;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      defaultValue = "${sys:user.home}/.berth",
      description =
          "Directory for the server's data, private to its user (mode 0700); created if missing"
              + " (default: ${DEFAULT-VALUE}).")
  private Path dataDir;

  @Option(
      names = "--idle-after",
      paramLabel = "DURATION",
      defaultValue = "10m",
      converter = DurationConverter.class,
      description =
          "No client access for this long makes a session idle (default: ${DEFAULT-VALUE}).")
  private Duration idleAfter;

  @Option(
      names = "--suspend-after",
      paramLabel = "DURATION",
      defaultValue = "60m",
      converter = DurationConverter.class,
      description =
          "No client access for this long suspends a session to an archive, unless a running"
              + " execution, a busy shell or a keep-alive holds it (default: ${DEFAULT-VALUE}).")
  private Duration suspendAfter;

  @Option(
      names = "--max-busy",
      paramLabel = "DURATION",
      defaultValue = "4h",
      converter = DurationConverter.class,
      description =
          "The longest busy work (or one keep-alive) holds an idle session (default:"
              + " ${DEFAULT-VALUE}).")
  private Duration maxBusy;

  @Option(
      names = "--idle-scan",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description = "How often the idle policy looks at the sessions (default: ${DEFAULT-VALUE}).")
  private Duration idleScan;

  @Option(
      names = "--recovery-window",
      paramLabel = "DURATION",
      defaultValue = "7d",
      converter = DurationConverter.class,
      description =
          "How long a deleted session's last archive is kept for recover (default:"
              + " ${DEFAULT-VALUE}).")
  private Duration recoveryWindow;

  @Option(
      names = "--operation-timeout",
      paramLabel = "DURATION",
      defaultValue = "10m",
      converter = DurationConverter.class,
      description =
          "How long a lifecycle operation (a start, a suspend, a resume) may take before it fails"
              + " with its reason: a start that waits for room on a node or for its image fails"
              + " then (default: ${DEFAULT-VALUE}).")
  private Duration operationTimeout;

  @Option(
      names = "--no-suspend",
      // Set, not toggled, when the flag is given: its default may come from BERTH_* or --config.
      fallbackValue = "true",
      description =
          "Never suspend sessions: snapshots answer 503 and idle sessions keep their runtimes.")
  private boolean noSuspend;

  @Option(
      names = "--network",
      paramLabel = "MODE",
      description =
          "What a session's own network namespace reaches: none (loopback only) or egress"
              + " (outbound connections through slirp4netns; the host's loopback, its own"
              + " addresses and link-local addresses stay unreachable). Default: egress where"
              + " slirp4netns works, else none.")
  private @Nullable String network;

  @Option(
      names = "--sandbox-bind",
      split = ",",
      paramLabel = "SRC[:DST][:ro]",
      description = "Adds a host path to every session's view, read-write unless :ro (repeatable).")
  private List<String> sandboxBinds = new ArrayList<>();

  @Option(
      names = "--sandbox-mask",
      split = ",",
      paramLabel = "PATH",
      description =
          "Hides a path of the host's /etc (or any path in the view) from sessions, besides the"
              + " built-in masks (repeatable).")
  private List<String> sandboxMasks = new ArrayList<>();

  @Option(
      names = "--cpu",
      paramLabel = "CPUS",
      description = "The CPU each session may use, in CPUs (0.5, 1, 2). Default: 1.")
  private @Nullable String cpu;

  @Option(
      names = "--max-disk",
      paramLabel = "SIZE",
      description =
          "What each session's state (home, /tmp, shell state, output) may take on disk, such as"
              + " 512M, 10G or 1T; a write beyond it fails inside the session. Default: 10G.")
  private @Nullable String maxDisk;

  @Option(
      names = "--require-isolation",
      // Set, not toggled, when the flag is given: its default may come from BERTH_* or --config.
      fallbackValue = "true",
      description =
          "Refuse to create sessions (503 ISOLATION_UNAVAILABLE) when the node cannot give them"
              + " user, mount, PID and network namespaces and a cgroup.")
  private boolean requireIsolation;

  @Option(
      names = "--agent-cli",
      split = ",",
      paramLabel = "TYPE=PATH",
      description =
          "The CLI an agent type runs (claude-code, codex, minimax-code), when it is not on PATH"
              + " as claude or codex (repeatable).")
  private List<String> agentClis = new ArrayList<>();

  @Option(
      names = "--providers",
      paramLabel = "FILE",
      description =
          "A JSON file of the agent types' providers: {\"claude-code\": {\"url\": \"https://…\","
              + " \"tokenFile\": \"…\", \"caFile\": \"…\", \"api\": \"…\", \"authHeader\": \"…\","
              + " \"model\": \"…\", \"models\": […], \"shared\": true, \"approval\": \"…\"}},"
              + " with --runtime kubernetes \"tokenSecret\": \"NAME/KEY\" and \"egressCidrs\": […]"
              + " instead of a token; BERTH_PROVIDER_<TYPE>_URL, _TOKEN, _TOKEN_FILE,"
              + " _TOKEN_SECRET, _CA_FILE, _API, _AUTH_HEADER, _MODEL, _MODELS, _SHARED and"
              + " _EGRESS_CIDRS set the same (docs/agents.md).")
  private @Nullable Path providers;

  @CommandLine.Mixin private ApprovalOptions approvals = new ApprovalOptions();

  @CommandLine.Mixin private ControlLeaseOptions controlLease = new ControlLeaseOptions();

  @Option(
      names = "--plugins-dir",
      paramLabel = "DIR",
      description =
          "The plugin marketplace: each directory in DIR holding .claude-plugin/plugin.json is a"
              + " plugin that claude-code and minimax-code sessions may ask for by its name"
              + " (\"plugins\" at create). Read at start (docs/agents.md).")
  private @Nullable Path pluginsDir;

  // The defaults of --store and --archive are written out, not ${DEFAULT-VALUE}: help shows the
  // value a BERTH_* variable or the config file gives, which may hold a password in its URL.
  @Option(
      names = "--store",
      paramLabel = "STORE",
      defaultValue = "sqlite",
      description =
          "Where the records live: sqlite (the data directory's berth.db, one server), a"
              + " PostgreSQL URL postgres://USER@HOST[:PORT]/DB that several replicas share (the"
              + " password from PGPASSWORD), or kubernetes://NAMESPACE: ConfigMaps and Leases in"
              + " that namespace, through the API server the kubeconfig or the pod's service"
              + " account names, which several replicas share too (the service account needs"
              + " deploy/base/rbac.yaml's configmaps and leases grants). A shared store needs"
              + " BERTH_ADMIN_TOKEN and an s3:// --archive (default: sqlite).")
  private String store;

  @Option(
      names = "--archive",
      paramLabel = "ARCHIVE",
      defaultValue = "filesystem",
      description =
          "Where suspended sessions' archives go: filesystem (the data directory) or"
              + " s3://BUCKET[/PREFIX][?endpoint=URL&region=NAME&pathStyle=true] (credentials"
              + " from the AWS SDK's default chain, e.g. AWS_ACCESS_KEY_ID and"
              + " AWS_SECRET_ACCESS_KEY) (default: filesystem).")
  private String archive;

  @Option(
      names = "--replica",
      paramLabel = "NAME",
      description =
          "This replica's name among those sharing a store (default: the host name and a digest"
              + " of the data directory).")
  private @Nullable String replica;

  @Option(
      names = "--runtime",
      paramLabel = "local|kubernetes",
      defaultValue = "local",
      description =
          "Where sessions run: local (a sandboxed process tree each, under this machine's node) or"
              + " kubernetes (a pod each; needs --agent-image and BERTH_AGENT_TOKEN_KEY, see"
              + " docs/kubernetes.md) (default: ${DEFAULT-VALUE}).")
  private String runtime;

  @Option(
      names = "--kube-namespace",
      paramLabel = "NAMESPACE",
      description =
          "With --runtime kubernetes: the namespace of the session pods (default: the server's own"
              + " pod's namespace, else default).")
  private @Nullable String kubeNamespace;

  @Option(
      names = "--agent-image",
      paramLabel = "IMAGE",
      description = "With --runtime kubernetes: the image session pods run (it holds berth).")
  private @Nullable String agentImage;

  @Option(
      names = "--agent-service-account",
      paramLabel = "NAME",
      description =
          "With --runtime kubernetes: the session pods' service account (its token is never"
              + " mounted) (default: the namespace's default).")
  private @Nullable String agentServiceAccount;

  @Option(
      names = "--service-account-tokens",
      // Set, not toggled, when the flag is given: its default may come from BERTH_* or --config.
      fallbackValue = "true",
      description =
          "Also accept Kubernetes service account tokens as bearer tokens: the API server checks"
              + " each (TokenReview, which needs the ClusterRole system:auth-delegator) and the"
              + " tenant listing the service account is the caller. Berth's own tokens keep"
              + " working and are never sent to the API server.")
  private boolean serviceAccountTokens;

  @Option(
      names = "--service-account-audience",
      paramLabel = "AUDIENCE",
      description =
          "With --service-account-tokens: the audience the tokens must be minted for (default:"
              + " ${DEFAULT-VALUE}).",
      defaultValue = "berth")
  private String serviceAccountAudience = "berth";

  @Option(
      names = "--log-format",
      paramLabel = "text|json",
      defaultValue = "text",
      description =
          "The log's form on stderr: text lines dated in ISO 8601 with their zone, or one JSON"
              + " object per line (time, level, logger, thread, message, error) (default:"
              + " ${DEFAULT-VALUE}).")
  private String logFormat = "text";

  @Option(
      names = "--log-level",
      paramLabel = "LEVEL",
      defaultValue = "info",
      description =
          "The least severe level logged: trace, debug, info, warn or error; info has a line per"
              + " request and per lifecycle step (default: ${DEFAULT-VALUE}).")
  private String logLevel = "info";

  @Option(
      names = "--metrics-without-token",
      // Set, not toggled, when the flag is given: its default may come from BERTH_* or --config.
      fallbackValue = "true",
      description =
          "Serve GET /metrics without the admin token, for a Prometheus that scrapes over a"
              + " network only the operators reach.")
  private boolean metricsWithoutToken;

  @Option(
      names = "--stop-node",
      fallbackValue = "true",
      description =
          "When the server stops, stop its local node too, unless the node still hosts sessions"
              + " (it then keeps running, with them, and the server says so; berth node stop"
              + " --force ends it). Without it the node outlives the server, so that a restart"
              + " finds the sessions running. Only for --runtime local.")
  private boolean stopNode;

  /**
   * {@code --stop-node} at shutdown: the node stops only when it hosts no session (never a shell
   * ended by surprise); otherwise why it runs on is said on stderr, the server's log.
   */
  private void stopNode() {
    PrintWriter err = spec.commandLine().getErr();
    try {
      err.println(
          "berth: "
              + NodeControl.stop(
                  dataDir.resolve(NODE_DIRECTORY),
                  false,
                  "berth node stop --force --data-dir " + dataDir + " stops it anyway"));
    } catch (UsageException e) {
      err.println("berth: " + e.getMessage() + "; it keeps running");
    }
    err.flush();
  }

  /** Where the local node of a data directory keeps its state (the server's DataDirectory.NODE). */
  private static final String NODE_DIRECTORY = "node";

  private CliEnvironment environment() {
    return ((BerthCommand) spec.root().userObject()).environment();
  }

  /** The environment's variables: the process's, or those a test gives. */
  private java.util.Map<String, String> variables() {
    return environment().variables();
  }

  private ServerConfig.Backends backends() {
    try {
      ServerConfig.Backends backends = choices();
      return serviceAccountTokens
          ? backends.withServiceAccountTokens(serviceAccountAudience)
          : backends;
    } catch (RuntimeException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private ServerConfig.Backends choices() {
    return new ServerConfig.Backends(
        StoreChoice.parse(store, variables()),
        ArchiveChoice.parse(archive),
        Optional.ofNullable(replica),
        RuntimeChoice.parse(
            runtime,
            Optional.ofNullable(kubeNamespace),
            Optional.ofNullable(agentImage),
            Optional.ofNullable(agentServiceAccount),
            variables()));
  }

  private ServerConfig.Agents agents() {
    java.util.Map<String, Path> clis = new java.util.LinkedHashMap<>();
    for (String entry : agentClis) {
      int eq = entry.indexOf('=');
      if (eq <= 0 || eq == entry.length() - 1) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "--agent-cli must be TYPE=PATH, such as claude-code=/opt/claude/bin/claude, was \""
                + entry
                + "\"");
      }
      clis.put(entry.substring(0, eq), Path.of(entry.substring(eq + 1)));
    }
    try {
      return new ServerConfig.Agents(
              clis, Optional.ofNullable(providers), Optional.ofNullable(pluginsDir))
          .withApprovals(approvals.settings());
    } catch (IllegalArgumentException | dev.berth.core.error.InvalidValueException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (spec.commandLine().getDefaultValueProvider() instanceof ServerDefaults defaults) {
      defaults.check(spec, Optional.ofNullable(config));
    }
    try {
      LogSetup.Format format = LogSetup.Format.parse(logFormat);
      ch.qos.logback.classic.Level level = LogSetup.level(logLevel);
      // In-process runs (tests) keep their host's logging.
      if (environment().ownsProcess()) {
        LogSetup.apply(format, level);
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    // The server creates the directory itself, private (0700), and refuses one that is not.
    BerthServer server =
        new BerthServer(
            new ServerConfig(listen.host(), listen.port(), dataDir)
                .withAdminToken(Optional.ofNullable(variables().get("BERTH_ADMIN_TOKEN")))
                .withFailpoints(Objects.requireNonNullElse(variables().get("BERTH_FAILPOINTS"), ""))
                .withNodeCommand(
                    LocalNode.javaLaunchCommand(
                        LocalNode.javaOptions(
                            Optional.ofNullable(
                                variables().get(LocalNode.NODE_JAVA_OPTIONS_VARIABLE)))))
                .withLifecycle(lifecycle())
                .withIsolation(isolation())
                .withAgents(agents())
                .withBackends(backends())
                .withObservability(new ServerConfig.Observability(metricsWithoutToken)));
    CountDownLatch stopped = new CountDownLatch(1);
    // Set once this server started: a start that failed (its port taken, another server on the
    // data directory) must not stop the node, which may be the running server's.
    java.util.concurrent.atomic.AtomicBoolean started =
        new java.util.concurrent.atomic.AtomicBoolean();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  if (stopNode && started.get() && "local".equals(runtime)) {
                    stopNode();
                  }
                  stopped.countDown();
                },
                "berth-shutdown"));
    try {
      server.start();
      started.set(true);
    } catch (dev.berth.protocol.files.NotPrivateException e) {
      // Says the path, the mode, the rule and the chmod already (ErrorReporter prints it as is).
      throw e;
    } catch (IllegalStateException | IllegalArgumentException | java.io.UncheckedIOException e) {
      // The refusals of a start say what to do already; a Java class name would only be noise.
      throw new StartFailedException(
          "the server did not start: " + java.util.Objects.toString(e.getMessage(), e.toString()));
    }
    PrintWriter out = spec.commandLine().getOut();
    String base = "http://" + new ListenAddress(listen.host(), server.port()).authority();
    out.println("Berth server listening on " + base);
    if (variables().get("BERTH_ADMIN_TOKEN") != null) {
      // A token the operator gave is never printed: this output is a container's log in a
      // cluster, which more people read than hold the token.
      out.println("Open the web UI and sign in with the admin token BERTH_ADMIN_TOKEN holds:");
      out.println("  " + base + "/login");
    } else {
      out.println("Open the web UI (this URL logs you in as the administrator):");
      out.println("  " + base + "/login?token=" + server.adminToken());
      out.println("The admin token is also in " + dataDir.resolve("admin.token"));
    }
    server.isolationTable().forEach(out::println);
    out.flush();
    stopped.await();
    return 0;
  }

  private ServerConfig.Isolation isolation() {
    List<String> arguments = new ArrayList<>();
    try {
      if (network != null) {
        arguments.addAll(List.of("--network", NetworkMode.parse(network).wireName()));
      }
      for (String bind : sandboxBinds) {
        arguments.addAll(List.of("--sandbox-bind", SandboxBind.parse(bind).spec()));
      }
      for (String mask : sandboxMasks) {
        if (!mask.startsWith("/")) {
          throw new IllegalArgumentException(
              "--sandbox-mask must be an absolute path, was \"" + mask + "\"");
        }
        arguments.addAll(List.of("--sandbox-mask", mask));
      }
      if (cpu != null) {
        arguments.addAll(List.of("--cpu", Integer.toString(cpuMillis(cpu))));
      }
      if (maxDisk != null) {
        long bytes = ByteSize.parse("--max-disk", maxDisk);
        if (bytes < ResourceLimits.MIN_DISK_BYTES) {
          throw new IllegalArgumentException(
              "--max-disk must be at least 16M (room for a filesystem and a shell's files), was \""
                  + maxDisk
                  + "\"");
        }
        arguments.addAll(List.of("--max-disk", Long.toString(bytes)));
      }
    } catch (RuntimeException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    return new ServerConfig.Isolation(arguments, requireIsolation);
  }

  private static int cpuMillis(String cpus) {
    double value;
    try {
      value = Double.parseDouble(cpus);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--cpu must be a number of CPUs such as 0.5, 1 or 2, was \"" + cpus + "\"");
    }
    if (!(value >= 0.01 && value <= 1000)) {
      throw new IllegalArgumentException(
          "--cpu must be between 0.01 and 1000 CPUs, was \"" + cpus + "\"");
    }
    return (int) Math.round(value * 1000);
  }

  private ServerConfig.Lifecycle lifecycle() {
    try {
      return ServerConfig.Lifecycle.defaults()
          .withIdle(new IdleSettings(idleAfter, suspendAfter, maxBusy, maxBusy))
          .withIdleScan(idleScan)
          .withRecoveryWindow(recoveryWindow)
          .withOperationTimeout(operationTimeout)
          .withSuspendEnabled(!noSuspend)
          .withControlLease(controlLease.settings());
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** Turns a bad {@code --listen} value into a usage error (exit code 2) that names it. */
  static final class ListenAddressConverter implements CommandLine.ITypeConverter<ListenAddress> {
    @Override
    public ListenAddress convert(String value) {
      try {
        return ListenAddress.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
