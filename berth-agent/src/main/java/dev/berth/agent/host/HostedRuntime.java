package dev.berth.agent.host;

import dev.berth.agent.archive.ArchiveIdentity;
import dev.berth.agent.archive.ArchiveRestorer;
import dev.berth.agent.contract.ControlLease;
import dev.berth.agent.contract.LocalContract;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.StateDisks;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.shell.ShellProcess;
import dev.berth.agent.shell.ShellState;
import dev.berth.core.digest.Sha256;
import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * One runtime incarnation on this host: its workload, its output log, its executions and its
 * control lease, all under the runtime's {@code state/} directory ({@code home/}, {@code tmp/},
 * {@code shell-state/}, {@code output/}, {@code executions/}). A shell runs with the {@link
 * ShellState} integration, so that a runtime directory brought back from an archive starts a shell
 * that gets back its environment, working directory, functions, aliases and history. A runtime
 * provisioned for a resume awaits its archive with nothing running until its {@link #checkpoint}
 * restores one; a runtime found on disk after a host restart is reloaded without a workload (its
 * processes died with the host) and reported as stopped, with its output still readable.
 *
 * <p>This class assembles the runtime's parts and starts its workload; each part owns one
 * responsibility: {@link RuntimeLifecycle} where it stands and what runs, {@link ShellSlot} the
 * shell, {@link RuntimeExecutions} the executions, {@link AgentPrompts} an agent's prompts, plugins
 * and transcript, {@link RuntimeCheckpoint} checkpoints and restores.
 */
final class HostedRuntime {

  private final Path directory;
  private final HostConfig config;
  private final Clock clock;
  private final Sandbox sandbox;
  private final NodeMeters meters;
  private final Optional<java.net.URI> sidecarProxy;
  private final LocalContract contract;
  private final ControlLease lease;
  private final RuntimeLifecycle lifecycle;
  private final ShellSlot shell;
  private final RuntimeExecutions executions;
  private final AgentPrompts agent;
  private final RuntimeCheckpoint checkpoint;
  // Replaced (never changed in place) once a restore started the workload; read without a lock.
  private volatile RuntimeDescriptor descriptor;

  private HostedRuntime(
      RuntimeDescriptor descriptor,
      Path directory,
      HostParts host,
      LocalContract contract,
      RuntimeLifecycle lifecycle,
      @Nullable AgentLaunch agentLaunch) {
    this.descriptor = descriptor;
    this.directory = directory;
    this.config = host.config();
    this.clock = host.clock();
    this.sandbox = host.sandbox();
    this.sidecarProxy = host.sidecarProxy();
    this.meters = host.meters();
    this.contract = contract;
    this.lifecycle = lifecycle;
    this.lease =
        new ControlLease(
            clock,
            // The request's policy (its tenant's) wins over the host's; the host's maximum
            // lifetime bounds every runtime whatever its request says.
            descriptor.disconnect() == null
                ? config.disconnectPolicy()
                : descriptor.disconnect().parsedPolicy(),
            descriptor.disconnect() == null
                ? config.disconnectGrace()
                : descriptor.disconnect().grace(),
            config.maxLifetime(),
            lifecycle::stopForLease,
            lifecycle::leaseStopsFor);
    String name = descriptor.runtime();
    String type = descriptor.workload();
    Path state = state(directory);
    this.shell = new ShellSlot(name, type, lifecycle, lease, clock);
    this.executions = new RuntimeExecutions(name, lifecycle, shell, state, config, clock, meters);
    this.agent = new AgentPrompts(name, type, lifecycle, lease, state, clock, agentLaunch);
    this.checkpoint = new RuntimeCheckpoint(name, type, lifecycle, state, config);
  }

  /**
   * A new runtime: its workload starts at once, or, when the descriptor says so, nothing starts and
   * the runtime awaits its archive.
   */
  static HostedRuntime start(
      RuntimeDescriptor descriptor,
      Path directory,
      HostParts host,
      LocalContract contract,
      @Nullable AgentLaunch agentLaunch) {
    HostedRuntime runtime =
        new HostedRuntime(
            descriptor, directory, host, contract, awaiting(descriptor.runtime()), agentLaunch);
    if (!descriptor.awaitRestore()) {
      runtime.install(runtime.startWorkload());
    }
    return runtime;
  }

  /**
   * A runtime found on disk by a restarted host. One that ran is stopped, its output readable. One
   * that was still awaiting its archive awaits it again: nothing ran in it, so a restore (the
   * control plane repeats it) is as good as it was before the restart. An unfinished swap of {@code
   * state/} is first finished or undone, so that the next restore finds a whole tree.
   */
  static HostedRuntime reload(
      RuntimeDescriptor descriptor, Path directory, HostParts host, LocalContract contract)
      throws IOException {
    String name = descriptor.runtime();
    if (descriptor.awaitRestore()) {
      ArchiveRestorer.recover(state(directory));
      return new HostedRuntime(descriptor, directory, host, contract, awaiting(name), null);
    }
    long cap =
        descriptor.workload().equals("shell")
            ? host.config().outputCapBytes()
            : AgentWorkload.logCap(host.config());
    OutputLog output = OutputLog.open(state(directory).resolve("output"), cap, host.clock());
    RuntimeLifecycle stopped =
        new RuntimeLifecycle(
            name,
            new Workload.Remains(output),
            RuntimeState.STOPPED,
            Optional.of("HOST_RESTARTED"));
    return new HostedRuntime(descriptor, directory, host, contract, stopped, null);
  }

  private static RuntimeLifecycle awaiting(String name) {
    return new RuntimeLifecycle(
        name, new Workload.Awaiting(), RuntimeState.AWAITING_RESTORE, Optional.empty());
  }

  /**
   * The name of a runtime's launch plan, which names its cgroup and the {@code BERTH_RUNTIME} tag
   * of its processes: both are machine-wide, while a runtime name is unique only on one host. Two
   * hosts on one machine (two node directories, or a test run beside another build) that hosted the
   * same runtime name shared one cgroup and tag, so that one host refused to start the shell or,
   * closing its own, killed the other's. A digest of the host's root makes the name the host's own,
   * and stays the same across restarts so that a restarted host adopts what it left behind.
   */
  static String planName(String runtime, Path root) {
    return runtime + "." + Sha256.hexPrefix(root.toAbsolutePath().normalize().toString(), 4);
  }

  /**
   * Everything a runtime's workload leaves behind lives under {@code state/} (home, output log,
   * executions' logs, shell state), so that one directory is what a checkpoint archives and what a
   * restore swaps in whole; {@code runtime.json} beside it describes the runtime itself.
   */
  static Path state(Path runtimeDirectory) {
    // On the runtime's own filesystem, whose size is the disk cap (StateDisks).
    return StateDisks.volume(runtimeDirectory).resolve("state");
  }

  static Path home(Path runtimeDirectory) {
    return state(runtimeDirectory).resolve("home");
  }

  RuntimeDescriptor descriptor() {
    return descriptor;
  }

  Path directory() {
    return directory;
  }

  /** The workload's output log; none while the runtime awaits its archive. */
  OutputLog output() {
    return lifecycle
        .workload()
        .log()
        .orElseThrow(() -> RuntimeRefusals.restoring(name(), "has no output yet"));
  }

  ControlLease lease() {
    return lease;
  }

  ShellSlot shell() {
    return shell;
  }

  RuntimeExecutions executions() {
    return executions;
  }

  AgentPrompts agent() {
    return agent;
  }

  RuntimeCheckpoint checkpoint() {
    return checkpoint;
  }

  /** Restores {@code archive} and starts the workload on it (see {@link RuntimeCheckpoint}). */
  Restored restore(ArchiveIdentity expected, InputStream archive) throws IOException {
    return checkpoint.restore(expected, archive, this::startRestored);
  }

  /** Stops the workload for good; the tombstone was written before this is called. */
  void terminate() {
    lifecycle.terminate();
  }

  /** Ends everything of this runtime: its processes, then its logs (streams then end). */
  void close() {
    Workload current = lifecycle.close();
    current.log().ifPresent(OutputLog::close);
    current.agent().ifPresent(running -> running.transcript().close());
    executions.closeLogs();
  }

  RuntimeView view() {
    synchronized (lifecycle) {
      RuntimeState state = lifecycle.state();
      Workload workload = lifecycle.workload();
      Optional<ShellProcess> process = workload.live().map(Workload.Live::shell);
      Optional<OutputLog> output = workload.log();
      boolean running = state == RuntimeState.RUNNING;
      return new RuntimeView(
          descriptor,
          state,
          process.map(p -> OptionalLong.of(p.pid())).orElse(OptionalLong.empty()),
          process.map(ShellProcess::isAlive).orElse(false),
          shell.starts(),
          shell.lastExit(),
          running && process.map(ShellProcess::busy).orElse(false),
          running ? process.flatMap(ShellProcess::foregroundCommand) : Optional.empty(),
          output.flatMap(OutputLog::lastAppendAt),
          lease.terms(),
          contract.record(),
          lifecycle.stopReason(),
          // Without a plan (awaiting, or reloaded after a restart) it is what this host runs a
          // runtime under: its configured limits, not the defaults (IsolationReportTest).
          workload
              .launchPlan()
              .map(LaunchPlan::isolation)
              .orElse(sandbox.isolation(config.limits())),
          sandbox.disks().usage(directory, config.limits().maxDiskBytes()),
          output.map(OutputLog::startOffset).orElse(0L),
          output.map(OutputLog::nextOffset).orElse(0L),
          process.map(ShellProcess::columns).orElse(80),
          process.map(ShellProcess::rows).orElse(24),
          // A prompt that runs or waits holds an agent session as a running command holds a shell.
          workload
              .live()
              .map(l -> l.executions().anyRunning())
              .orElse(workload.agent().map(a -> a.prompts().busy()).orElse(false)));
    }
  }

  private String name() {
    return descriptor.runtime();
  }

  /**
   * The workload on the restored state; once it runs, a host restart must not let the runtime await
   * an archive again. A workload that cannot be installed is stopped and its log closed.
   */
  private Workload startRestored() {
    Workload started = startWorkload();
    try {
      RuntimeDescriptor restored = descriptor.restored();
      restored.write(directory);
      descriptor = restored;
      install(started);
    } catch (RuntimeException e) {
      started.stop();
      started.log().ifPresent(OutputLog::close);
      throw e;
    }
    return started;
  }

  /** The workload the descriptor names: a shell, or an agent session with its launch. */
  private Workload startWorkload() {
    if (descriptor.workload().equals("shell")) {
      return ShellWorkload.start(
          descriptor.sessionId(),
          state(directory),
          planName(name(), config.root()),
          config,
          sandbox,
          descriptor.networkLimit(),
          clock,
          executions.outputs(),
          meters);
    }
    AgentLaunch launch = agent.launch();
    if (launch == null || launch.spent()) {
      throw RuntimeRefusals.agentMissing(name(), descriptor.workload());
    }
    Workload started =
        AgentWorkload.start(
            descriptor.sessionId(),
            state(directory),
            sidecarProxy
                .<AgentWorkload.ProxyPlace>map(AgentWorkload.ProxyPlace.Sidecar::new)
                .orElseGet(() -> new AgentWorkload.ProxyPlace.Own(proxySocket())),
            planName(name(), config.root()),
            config,
            sandbox,
            launch,
            descriptor.workload(),
            clock,
            meters);
    // The proxy process has the token now (a sidecar had it all along); the node keeps none.
    agent.spend();
    return started;
  }

  /**
   * The credential proxy's socket: under the host's root, never under {@code state/}, and short (a
   * Unix socket's path is at most 107 bytes), named by a digest of the runtime's directory.
   */
  private Path proxySocket() {
    Path dir = config.root().resolve("proxies");
    try {
      PrivateFiles.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir, e);
    }
    return dir.resolve(Sha256.hexPrefix(directory.toAbsolutePath().toString(), 8) + ".sock");
  }

  /**
   * Makes {@code started} the runtime's workload (see {@link RuntimeLifecycle#install}), counting
   * its shell with it, then watches that shell's exit outside the monitor.
   */
  private void install(Workload started) {
    synchronized (lifecycle) {
      lifecycle.install(started);
      if (started instanceof Workload.Live) {
        shell.counted();
      }
    }
    started.live().ifPresent(shell::watch);
  }
}
