package dev.berth.agent.host;

import dev.berth.agent.agentcli.AgentAdapter;
import dev.berth.agent.agentcli.AgentPaths;
import dev.berth.agent.agentcli.MarkerConfirmation;
import dev.berth.agent.agentcli.PromptRunner;
import dev.berth.agent.agentcli.ProviderEndpoint;
import dev.berth.agent.agentcli.TranscriptLog;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.NetworkMode;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.SandboxBind;
import dev.berth.agent.isolation.WritablePaths;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.proxy.ProxyLaunch;
import dev.berth.agent.proxy.ProxyMarkerConfirmation;
import dev.berth.agent.proxy.ProxyProcess;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.problem.AgentReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Starts an agent runtime's workload: its output log and transcript, its credential proxy process,
 * its sandbox on the proxy network and its prompt runner. No CLI process runs until a prompt comes.
 *
 * <p>Where the proxy listens: on a Unix socket under the host's root (outside {@code state/}, so
 * that no archive holds it and the sandbox never sees it), which the sandbox's network brings to
 * {@code 127.0.0.1:8091}; it is bound through a throwaway {@code /tmp} alias, so the session's
 * socket table does not name the node's data directory. The proxy is a process of its own ({@link
 * ProxyProcess}): the token goes to it on its stdin, and the node keeps none of it afterwards (the
 * prompt runner redacts the profile's other secrets; the proxy redacts the token from every answer,
 * and the CLI only ever has the placeholder). A node that cannot confine refuses agent sessions:
 * unconfined, the CLI's tools would run as the node's user, which can reach whatever the node
 * holds.
 *
 * <p>In a session pod the proxy is not the host's: it runs in the pod's {@code proxy} container
 * ({@link ProxyPlace.Sidecar}), the only place the provider's token is. The host then starts no
 * proxy, and the CLI runs unconfined in the agent container, which is the session's sandbox (its
 * own user, filesystem and limits), reaching the proxy at the pod's {@code 127.0.0.1:8091}.
 */
final class AgentWorkload {

  /** Where an agent session's credential proxy runs. */
  sealed interface ProxyPlace {
    /** Under this host, on a Unix socket the sandbox's proxy network leads to. */
    record Own(Path socket) implements ProxyPlace {}

    /** Beside the host (a pod's sidecar), at {@code url}; the host runs none. */
    record Sidecar(java.net.URI url) implements ProxyPlace {}
  }

  /** Where a confined CLI sees its installation (bound read-only). */
  static final Path SANDBOX_CLI_ROOT = Path.of("/opt/berth/agent-cli");

  private final SessionId session;
  private final Path state;
  private final ProxyPlace proxyPlace;
  private final HostConfig config;
  private final Clock clock;
  private final NodeMeters meters;

  private AgentWorkload(
      SessionId session,
      Path state,
      ProxyPlace proxyPlace,
      HostConfig config,
      Clock clock,
      NodeMeters meters) {
    this.session = session;
    this.state = state;
    this.proxyPlace = proxyPlace;
    this.config = config;
    this.clock = clock;
    this.meters = meters;
  }

  /** The parts, opened in order; a failure closes what was opened before it. */
  static Workload.Agent start(
      SessionId session,
      Path state,
      ProxyPlace proxyPlace,
      String planName,
      HostConfig config,
      Sandbox sandbox,
      AgentLaunch launch,
      String workload,
      Clock clock,
      NodeMeters meters) {
    AgentAdapter known =
        AgentLaunch.adapter(workload)
            .orElseThrow(() -> new IllegalArgumentException("no adapter for " + workload));
    boolean gated = launch.approval() != null && launch.approval().settings().isPresent();
    AgentAdapter adapter = gated ? known.gated() : known;
    if (proxyPlace instanceof ProxyPlace.Own) {
      requireConfinement(sandbox, meters);
    }
    return new AgentWorkload(session, state, proxyPlace, config, clock, meters)
        .open(adapter, planName, sandbox, launch);
  }

  /**
   * Unconfined, the CLI's tools would run as the node's user, beside the proxy's port and the
   * node's own process: the token would be one step away. Agents need the sandbox.
   */
  private static void requireConfinement(Sandbox sandbox, NodeMeters meters) {
    if (!sandbox.confines()) {
      meters.sandboxFailed(NodeMeters.SandboxFailure.UNCONFINED);
      throw new HostRefusal(
          503,
          AgentReason.ISOLATION_UNAVAILABLE,
          "an agent session needs the sandbox (bubblewrap with user, mount, PID and network"
              + " namespaces), which this node cannot give; install bubblewrap, or run shell"
              + " sessions only");
    }
  }

  private Workload.Agent open(
      AgentAdapter adapter, String planName, Sandbox sandbox, AgentLaunch launch) {
    AgentPaths paths = AgentPaths.under(state);
    createDirectories(paths.workspace());
    // Checked here, so that a bad profile is refused with the node's field names before any
    // process starts; the profile itself is not kept. A sidecar's profile is the sidecar's.
    List<String> otherSecrets =
        proxyPlace instanceof ProxyPlace.Own
            ? launch.provider().profile().otherSecrets()
            : List.of();
    // The runner keeps the session's output under its own cap, with its marker: the log never
    // drops its head before that.
    OutputLog output = OutputLog.open(state.resolve("output"), logCap(config), clock);
    ProxyProcess proxy = null;
    LaunchPlan plan = null;
    try {
      if (proxyPlace instanceof ProxyPlace.Own own) {
        proxy = startProxy(launch, own.socket());
      }
      Installation cli =
          proxyPlace instanceof ProxyPlace.Own
              ? Installation.of(Path.of(launch.cli()))
              : Installation.unconfined(Path.of(launch.cli()));
      Optional<SharedDirectory> shared =
          Boolean.TRUE.equals(launch.shared())
              ? Optional.of(SharedDirectory.in(state))
              : Optional.empty();
      plan = plan(planName, sandbox, paths, cli, shared);
      plan.giveToWorkload(
          PluginCopies.copy(launch.plugins(), paths.plugins(), state.resolve(PluginCopies.WORK)));
      TranscriptLog transcript = TranscriptLog.open(state, clock);
      PromptRunner runner =
          new PromptRunner(
              setup(
                  adapter,
                  cli,
                  paths,
                  plan,
                  otherSecrets,
                  output,
                  transcript,
                  shared,
                  gated(launch)));
      return new Workload.Agent(output, output.nextOffset(), plan, proxy, runner, transcript);
    } catch (RuntimeException e) {
      if (plan != null) {
        plan.close();
      }
      if (proxy != null) {
        proxy.close();
      }
      output.close();
      throw e;
    }
  }

  private ProxyProcess startProxy(AgentLaunch launch, Path socket) {
    try {
      return ProxyProcess.start(launch.proxyLaunch(session, socket));
    } catch (ProxyLaunch.Invalid e) {
      throw new InvalidValueException("invalid input: agent." + e.getMessage());
    }
  }

  /**
   * The sandbox on the proxy network; only the home, {@code /tmp} and the shared directory (when
   * the session has one) are writable in it.
   */
  private LaunchPlan plan(
      String planName,
      Sandbox sandbox,
      AgentPaths paths,
      Installation cli,
      Optional<SharedDirectory> shared) {
    WritablePaths writable =
        shared
            .map(
                dir ->
                    WritablePaths.of(paths.home(), dir.host())
                        .withTarget(dir.host(), SharedDirectory.SANDBOX_PATH))
            .orElseGet(() -> WritablePaths.of(paths.home()))
            .withTmp(state.resolve("tmp"))
            .withTarget(paths.home(), AgentPaths.SANDBOX_HOME);
    return SandboxSteps.reported(
        meters,
        NodeMeters.SandboxFailure.CONFINEMENT,
        () ->
            sandbox.agentPlan(
                planName, List.of("true"), writable, config.limits(), socket(), cli.binds()));
  }

  /** The proxy's socket; a sidecar has none, and its plan is unconfined, which takes none. */
  private Path socket() {
    return switch (proxyPlace) {
      case ProxyPlace.Own own -> own.socket();
      case ProxyPlace.Sidecar sidecar -> state.resolve("no-proxy-socket");
    };
  }

  /** Whether the session's proxy gates tool calls, so the CLI must declare no provider-run tool. */
  private static boolean gated(AgentLaunch launch) {
    AgentLaunch.Approval approval = launch.approval();
    return approval != null && approval.settings().isPresent();
  }

  private PromptRunner.Setup setup(
      AgentAdapter adapter,
      Installation cli,
      AgentPaths paths,
      LaunchPlan plan,
      List<String> otherSecrets,
      OutputLog output,
      TranscriptLog transcript,
      Optional<SharedDirectory> shared,
      boolean gated) {
    // Confined, the CLI sees its home at the sandbox's path and the proxy at its own loopback; a
    // sidecar's CLI runs unconfined, with the host's paths, and reaches the pod's loopback.
    boolean own = proxyPlace instanceof ProxyPlace.Own;
    String base =
        switch (proxyPlace) {
          case ProxyPlace.Own o -> "http://127.0.0.1:" + NetworkMode.PROXY_PORT;
          case ProxyPlace.Sidecar sidecar -> sidecar.url().toString();
        };
    ProviderEndpoint endpoint = new ProviderEndpoint(base, ProviderEndpoint.PLACEHOLDER, gated);
    return new PromptRunner.Setup(
        session,
        adapter,
        cli.path(),
        paths,
        own ? paths.inSandbox() : paths,
        plan,
        endpoint,
        otherSecrets,
        new MeteredSink(output, NodeMeters.OutputKind.AGENT, meters),
        output.nextOffset(),
        transcript,
        clock,
        PromptRunner.Limits.defaults(),
        shared.map(SharedDirectory::environment).orElse(Map.of()),
        gated ? markers() : MarkerConfirmation.NONE);
  }

  /**
   * Who confirms the approval markers in the answers (the model can write their text too): the
   * proxy that wrote them, on its socket, or the pod's sidecar on the pod's loopback.
   */
  private MarkerConfirmation markers() {
    return switch (proxyPlace) {
      case ProxyPlace.Own own -> ProxyMarkerConfirmation.onSocket(own.socket());
      case ProxyPlace.Sidecar sidecar -> ProxyMarkerConfirmation.at(sidecar.url());
    };
  }

  /**
   * The cap of an agent session's output log: above the runner's session cap with its marker, so
   * that the log never drops its head (also when a restarted host reopens it).
   */
  static long logCap(HostConfig config) {
    return Math.max(
        config.outputCapBytes(), PromptRunner.Limits.defaults().sessionOutputCap() + (1 << 20));
  }

  /**
   * The CLI as the workload runs it. An npm installation ({@code node_modules/.bin/claude}) needs
   * its whole {@code node_modules} (the script's package, a native binary in an optional package),
   * mounted under that same name: Node finds a package's dependencies by walking up to a
   * directory called {@code node_modules} (Codex's launcher resolves its native binary, {@code
   * @openai/codex-linux-x64}, so). Any other CLI gets only its own file, so that nothing beside it
   * (a token file, a key) is shown.
   */
  record Installation(Path path, List<SandboxBind> binds) {
    /** Where an unconfined CLI is: its own path, nothing bound. */
    static Installation unconfined(Path cli) {
      return new Installation(cli, List.of());
    }

    static Installation of(Path cli) {
      try {
        Path parent = cli.getParent();
        Path grand = parent == null ? null : parent.getParent();
        if (parent != null
            && grand != null
            && parent.getFileName().toString().equals(".bin")
            && grand.getFileName() != null
            && grand.getFileName().toString().equals("node_modules")) {
          Path modules = SANDBOX_CLI_ROOT.resolve("node_modules");
          return new Installation(
              modules.resolve(".bin").resolve(cli.getFileName().toString()),
              List.of(new SandboxBind(grand.toRealPath(), modules, true)));
        }
        Path real = cli.toRealPath();
        Path inside = SANDBOX_CLI_ROOT.resolve(real.getFileName().toString());
        return new Installation(inside, List.of(new SandboxBind(real, inside, true)));
      } catch (IOException e) {
        throw new UncheckedIOException("the agent CLI " + cli + " cannot be found", e);
      }
    }
  }

  private static void createDirectories(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir, e);
    }
  }
}
