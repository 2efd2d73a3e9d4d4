package dev.berth.server;

import dev.berth.core.idle.IdleSettings;
import dev.berth.server.runtime.local.LocalNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the Berth server listens, where it keeps its data, and how it runs the local data plane.
 *
 * @param host the host name or IP address to bind to, for example {@code 127.0.0.1}
 * @param port the TCP port to bind to, 0..65535; 0 picks a free port
 * @param dataDir the directory that holds the server's state (store, tokens, the node's state)
 * @param adminToken the admin token to use ({@code BERTH_ADMIN_TOKEN}); otherwise the one in the
 *     data directory, created at first start
 * @param nodeCommand the command that runs a local node on a directory given as last argument
 * @param failpoints test-only crash points ({@code BERTH_FAILPOINTS}); empty in production
 * @param lifecycle the idle policy's timings, whether sessions are suspended at all, and how long a
 *     deleted session's last archive is kept
 */
public record ServerConfig(
    String host,
    int port,
    Path dataDir,
    Optional<String> adminToken,
    List<String> nodeCommand,
    String failpoints,
    Lifecycle lifecycle,
    Isolation isolation,
    Agents agents,
    Backends backends,
    Observability observability) {

  public static final int MAX_PORT = 65_535;

  public ServerConfig {
    Objects.requireNonNull(host, "host must not be null");
    Objects.requireNonNull(dataDir, "dataDir must not be null");
    Objects.requireNonNull(adminToken, "adminToken must not be null");
    nodeCommand = List.copyOf(nodeCommand);
    Objects.requireNonNull(failpoints, "failpoints must not be null");
    Objects.requireNonNull(lifecycle, "lifecycle must not be null");
    Objects.requireNonNull(isolation, "isolation must not be null");
    Objects.requireNonNull(agents, "agents must not be null");
    Objects.requireNonNull(backends, "backends must not be null");
    Objects.requireNonNull(observability, "observability must not be null");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank, got '" + host + "'");
    }
    if (port < 0 || port > MAX_PORT) {
      throw new IllegalArgumentException(
          "port must be between 0 and " + MAX_PORT + ", got " + port);
    }
  }

  /** Defaults for everything but the address and the data directory. */
  public ServerConfig(String host, int port, Path dataDir) {
    this(
        host,
        port,
        dataDir,
        Optional.empty(),
        LocalNode.javaLaunchCommand(),
        "",
        Lifecycle.defaults(),
        Isolation.defaults(),
        Agents.none(),
        Backends.defaults(),
        Observability.defaults());
  }

  public ServerConfig withAdminToken(Optional<String> token) {
    return new ServerConfig(
        host,
        port,
        dataDir,
        token,
        nodeCommand,
        failpoints,
        lifecycle,
        isolation,
        agents,
        backends,
        observability);
  }

  public ServerConfig withFailpoints(String names) {
    return new ServerConfig(
        host,
        port,
        dataDir,
        adminToken,
        nodeCommand,
        names,
        lifecycle,
        isolation,
        agents,
        backends,
        observability);
  }

  /** The command that runs the local node; see {@link LocalNode#javaLaunchCommand(List)}. */
  public ServerConfig withNodeCommand(List<String> command) {
    return new ServerConfig(
        host,
        port,
        dataDir,
        adminToken,
        command,
        failpoints,
        lifecycle,
        isolation,
        agents,
        backends,
        observability);
  }

  public ServerConfig withLifecycle(Lifecycle settings) {
    return new ServerConfig(
        host,
        port,
        dataDir,
        adminToken,
        nodeCommand,
        failpoints,
        settings,
        isolation,
        agents,
        backends,
        observability);
  }

  public ServerConfig withIsolation(Isolation settings) {
    return new ServerConfig(
        host,
        port,
        dataDir,
        adminToken,
        nodeCommand,
        failpoints,
        lifecycle,
        settings,
        agents,
        backends,
        observability);
  }

  public ServerConfig withAgents(Agents settings) {
    return new ServerConfig(
        host,
        port,
        dataDir,
        adminToken,
        nodeCommand,
        failpoints,
        lifecycle,
        isolation,
        settings,
        backends,
        observability);
  }

  public ServerConfig withBackends(Backends settings) {
    return new ServerConfig(
        host,
        port,
        dataDir,
        adminToken,
        nodeCommand,
        failpoints,
        lifecycle,
        isolation,
        agents,
        settings,
        observability);
  }

  /**
   * Where the records and the archives live, and this replica's name among those sharing them.
   *
   * @param store {@code --store}
   * @param archive {@code --archive}
   * @param replica {@code --replica}: this control plane's name as a lease holder; by default the
   *     host name and the data directory, so that a restarted replica takes its leases back at once
   *     and two on one machine never pass for each other
   * @param runtime {@code --runtime} and its companions: where sessions run
   * @param serviceAccountAudience {@code --service-account-tokens}: when present, a Kubernetes
   *     service account token minted for this audience authenticates as the tenant listing it
   */
  public ServerConfig withObservability(Observability settings) {
    return new ServerConfig(
        host,
        port,
        dataDir,
        adminToken,
        nodeCommand,
        failpoints,
        lifecycle,
        isolation,
        agents,
        backends,
        settings);
  }

  /**
   * What the server shows its operators.
   *
   * @param metricsWithoutToken whether {@code GET /metrics} answers without the admin token (for a
   *     scraper on a network that only the operators reach)
   */
  public record Observability(boolean metricsWithoutToken) {
    public static Observability defaults() {
      return new Observability(false);
    }
  }

  public record Backends(
      StoreChoice store,
      ArchiveChoice archive,
      Optional<String> replica,
      RuntimeChoice runtime,
      Optional<String> serviceAccountAudience) {
    public Backends {
      Objects.requireNonNull(store, "store must not be null");
      Objects.requireNonNull(archive, "archive must not be null");
      Objects.requireNonNull(replica, "replica must not be null");
      Objects.requireNonNull(runtime, "runtime must not be null");
      Objects.requireNonNull(serviceAccountAudience, "serviceAccountAudience must not be null");
      if (serviceAccountAudience.isPresent() && serviceAccountAudience.get().isBlank()) {
        throw new IllegalArgumentException(
            "the audience of service account tokens must not be blank; leave it out for \"berth\"");
      }
    }

    /** These backends, accepting Berth's own tokens only. */
    public Backends(
        StoreChoice store, ArchiveChoice archive, Optional<String> replica, RuntimeChoice runtime) {
      this(store, archive, replica, runtime, Optional.empty());
    }

    /** These backends with sessions on the local runtime. */
    public Backends(StoreChoice store, ArchiveChoice archive, Optional<String> replica) {
      this(store, archive, replica, new RuntimeChoice.Local());
    }

    /**
     * These backends also accepting Kubernetes service account tokens minted for {@code audience},
     * checked by TokenReview.
     */
    public Backends withServiceAccountTokens(String audience) {
      return new Backends(store, archive, replica, runtime, Optional.of(audience));
    }

    /** SQLite and archives in the data directory, one server, sessions on this machine. */
    public static Backends defaults() {
      return new Backends(
          new StoreChoice.Sqlite(), new ArchiveChoice.Filesystem(), Optional.empty());
    }
  }

  /**
   * Where the agent types' CLIs and providers come from (see {@link AgentCatalog}).
   *
   * @param clis {@code --agent-cli TYPE=PATH}
   * @param providersFile {@code --providers FILE}
   * @param pluginsDir {@code --plugins-dir DIR}, the plugin marketplace (see {@link
   *     PluginMarketplace})
   * @param approvals {@code --approval} and its companions: which tool calls wait for a decision
   */
  public record Agents(
      java.util.Map<String, Path> clis,
      Optional<Path> providersFile,
      Optional<Path> pluginsDir,
      ApprovalSettings approvals) {
    public Agents {
      clis = java.util.Map.copyOf(clis);
      Objects.requireNonNull(providersFile, "providersFile");
      Objects.requireNonNull(pluginsDir, "pluginsDir");
      Objects.requireNonNull(approvals, "approvals");
    }

    /** The approvals' defaults. */
    public Agents(
        java.util.Map<String, Path> clis, Optional<Path> providersFile, Optional<Path> pluginsDir) {
      this(clis, providersFile, pluginsDir, ApprovalSettings.defaults());
    }

    /** Nothing given: the CLIs on PATH and the BERTH_PROVIDER_* variables only. */
    public static Agents none() {
      return new Agents(java.util.Map.of(), Optional.empty(), Optional.empty());
    }

    public Agents withApprovals(ApprovalSettings settings) {
      return new Agents(clis, providersFile, pluginsDir, settings);
    }
  }

  /** The command that starts the node: {@link #nodeCommand()} with the sandbox's options. */
  public List<String> nodeLaunchCommand() {
    List<String> command = new java.util.ArrayList<>(nodeCommand);
    command.addAll(isolation.nodeArguments());
    return List.copyOf(command);
  }

  /**
   * The sessions' sandbox.
   *
   * @param nodeArguments the node's sandbox options ({@code --network}, {@code --sandbox-bind},
   *     {@code --sandbox-mask}, {@code --cpu}), passed on as they are
   * @param required whether sessions are refused on a node that cannot isolate them
   */
  public record Isolation(List<String> nodeArguments, boolean required) {
    public Isolation {
      nodeArguments = List.copyOf(nodeArguments);
    }

    public static Isolation defaults() {
      return new Isolation(List.of(), false);
    }
  }

  /**
   * Suspension and retention.
   *
   * @param idle when a session is idle and when it is suspended
   * @param idleScan how often the idle policy looks at the sessions
   * @param suspendEnabled whether sessions are suspended at all (off: snapshots answer 503 and idle
   *     sessions keep their runtimes)
   * @param recoveryWindow how long a deleted session's last archive is kept for {@code recover}
   * @param controlLease the runtimes' control lease and the default disconnect policy
   */
  public record Lifecycle(
      IdleSettings idle,
      Duration idleScan,
      boolean suspendEnabled,
      Duration recoveryWindow,
      Duration operationTimeout,
      ControlLeaseSettings controlLease) {

    public Lifecycle {
      Objects.requireNonNull(idle, "idle must not be null");
      Objects.requireNonNull(controlLease, "controlLease must not be null");
      positive("idleScan", idleScan);
      positive("recoveryWindow", recoveryWindow);
      positive("operationTimeout", operationTimeout);
      // A start that waits for a node or an image must end some day, with its reason: a session
      // provisioning for ever holds its tenant's quota slot and tells nobody why.
      if (operationTimeout.compareTo(MAX_OPERATION_TIMEOUT) > 0) {
        throw new IllegalArgumentException(
            "--operation-timeout must be at most "
                + MAX_OPERATION_TIMEOUT.toHours()
                + "h, got "
                + operationTimeout
                + "; a longer wait keeps a stalled session's quota slot for as long");
      }
    }

    /** The longest {@code --operation-timeout}. */
    public static final Duration MAX_OPERATION_TIMEOUT = Duration.ofHours(24);

    /**
     * The documented defaults: IdleSettings' timings, a scan every 30 s, a 7-day window, 10 minutes
     * for an operation.
     */
    public static Lifecycle defaults() {
      return new Lifecycle(
          IdleSettings.defaults(),
          Duration.ofSeconds(30),
          true,
          Duration.ofDays(7),
          Duration.ofMinutes(10),
          ControlLeaseSettings.defaults());
    }

    public Lifecycle withIdle(IdleSettings timings) {
      return new Lifecycle(
          timings, idleScan, suspendEnabled, recoveryWindow, operationTimeout, controlLease);
    }

    public Lifecycle withIdleScan(Duration interval) {
      return new Lifecycle(
          idle, interval, suspendEnabled, recoveryWindow, operationTimeout, controlLease);
    }

    public Lifecycle withSuspendEnabled(boolean enabled) {
      return new Lifecycle(idle, idleScan, enabled, recoveryWindow, operationTimeout, controlLease);
    }

    public Lifecycle withRecoveryWindow(Duration window) {
      return new Lifecycle(idle, idleScan, suspendEnabled, window, operationTimeout, controlLease);
    }

    /** How long a lifecycle operation may take, from its creation, before it fails. */
    public Lifecycle withOperationTimeout(Duration timeout) {
      return new Lifecycle(idle, idleScan, suspendEnabled, recoveryWindow, timeout, controlLease);
    }

    /** The runtimes' control lease and the disconnect policy of sessions without their own. */
    public Lifecycle withControlLease(ControlLeaseSettings settings) {
      return new Lifecycle(
          idle, idleScan, suspendEnabled, recoveryWindow, operationTimeout, settings);
    }

    private static void positive(String name, Duration value) {
      Objects.requireNonNull(value, name + " must not be null");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, got " + value);
      }
    }
  }
}
