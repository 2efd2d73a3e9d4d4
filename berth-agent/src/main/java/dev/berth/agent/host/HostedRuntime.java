package dev.berth.agent.host;

import dev.berth.agent.archive.ArchiveIdentity;
import dev.berth.agent.archive.ArchiveSummary;
import dev.berth.agent.archive.ArchiveWriter;
import dev.berth.agent.contract.ControlLease;
import dev.berth.agent.contract.LocalContract;
import dev.berth.agent.execution.ExecutionOutputs;
import dev.berth.agent.execution.ExecutionRequest;
import dev.berth.agent.execution.ExecutionRunner;
import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.ResourceLimits;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.Signals;
import dev.berth.agent.isolation.WritablePaths;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.output.OutputSink;
import dev.berth.agent.shell.ShellProcess;
import dev.berth.agent.shell.ShellSpec;
import dev.berth.agent.shell.ShellState;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.ExecutionId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;

/**
 * One runtime incarnation on this host: its shell on a PTY, its output log, its executions and its
 * control lease, all under the runtime's {@code state/} directory ({@code home/}, {@code tmp/},
 * {@code shell-state/}, {@code output/}, {@code executions/}). The shell runs with the {@link
 * ShellState} integration, so that a runtime directory brought back from an archive starts a shell
 * that gets back its environment, working directory, functions, aliases and history. A runtime
 * found on disk after a host restart is reloaded without a shell (its processes died with the host)
 * and reported as stopped, with its output still readable.
 */
final class HostedRuntime {

  /** How long a checkpoint waits for the shell to write a fresh capture of its state. */
  static final Duration CAPTURE_TIMEOUT = Duration.ofSeconds(2);

  /** How long a shell gets between SIGHUP and SIGKILL, as the original agent did. */
  static final Duration STOP_GRACE = Duration.ofSeconds(5);

  private final RuntimeDescriptor descriptor;
  private final Path directory;
  private final OutputLog output;
  private final Optional<LaunchPlan> plan;
  private Optional<ShellState> shellState = Optional.empty();
  private final Optional<ShellProcess> shell;
  private final Optional<ExecutionRunner> executions;
  private final Map<ExecutionId, OutputLog> executionLogs = new ConcurrentHashMap<>();
  private final ControlLease lease;
  private final Sandbox sandbox;
  private final ResourceLimits limits;
  private final LocalContract contract;
  private RuntimeState state;
  private Optional<String> stopReason = Optional.empty();
  private volatile String pendingStopReason = ControlLease.LEASE_EXPIRED;

  private HostedRuntime(
      RuntimeDescriptor descriptor,
      Path directory,
      HostConfig config,
      Sandbox sandbox,
      LocalContract contract,
      Clock clock,
      boolean startShell) {
    this.descriptor = descriptor;
    this.directory = directory;
    this.sandbox = sandbox;
    this.limits = config.limits();
    this.contract = contract;
    this.output =
        OutputLog.open(state(directory).resolve("output"), config.outputCapBytes(), clock);
    this.lease =
        new ControlLease(
            clock,
            config.disconnectPolicy(),
            config.disconnectGrace(),
            config.maxLifetime(),
            () -> stop(pendingStopReason),
            reason -> pendingStopReason = reason);
    if (startShell) {
      ShellState shellState;
      try {
        shellState =
            ShellState.prepare(
                state(directory), ShellSpec.defaults(home(directory), config.shell()));
      } catch (RuntimeException e) {
        output.close();
        throw e;
      }
      this.shellState = Optional.of(shellState);
      ShellSpec spec = shellState.spec();
      // Only home/, tmp/ (the shell's /tmp) and shell-state/ are writable under the sandbox: the
      // workload cannot touch its own output log.
      LaunchPlan launch;
      try {
        launch =
            sandbox.plan(
                planName(descriptor.runtime(), config.root()),
                spec.command(),
                WritablePaths.of(home(directory), shellState.directory())
                    .withTmp(state(directory).resolve("tmp")),
                config.limits());
      } catch (RuntimeException e) {
        output.close();
        throw e;
      }
      ShellProcess process;
      try {
        process = ShellProcess.start(spec, launch, output);
      } catch (RuntimeException e) {
        launch.close();
        output.close();
        throw e;
      }
      this.plan = Optional.of(launch);
      this.shell = Optional.of(process);
      this.executions =
          Optional.of(
              new ExecutionRunner(
                  descriptor.sessionId(),
                  spec,
                  launch,
                  new ExecutionOutputs() {
                    @Override
                    public OutputSink open(ExecutionId id) {
                      return executionLog(id, config, clock);
                    }

                    @Override
                    public void finished(ExecutionId id) {
                      OutputLog log = executionLogs.get(id);
                      if (log != null) {
                        log.close();
                      }
                    }
                  },
                  clock,
                  RandomGenerator.getDefault()));
      this.state = RuntimeState.RUNNING;
      process.onExit().thenRun(this::shellExited);
    } else {
      this.plan = Optional.empty();
      this.shell = Optional.empty();
      this.executions = Optional.empty();
      this.state = RuntimeState.STOPPED;
      this.stopReason = Optional.of("HOST_RESTARTED");
    }
  }

  static HostedRuntime start(
      RuntimeDescriptor descriptor,
      Path directory,
      HostConfig config,
      Sandbox sandbox,
      LocalContract contract,
      Clock clock) {
    return new HostedRuntime(descriptor, directory, config, sandbox, contract, clock, true);
  }

  /** A runtime found on disk by a restarted host: output readable, no shell. */
  static HostedRuntime reload(
      RuntimeDescriptor descriptor,
      Path directory,
      HostConfig config,
      Sandbox sandbox,
      LocalContract contract,
      Clock clock) {
    return new HostedRuntime(descriptor, directory, config, sandbox, contract, clock, false);
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
    byte[] digest;
    try {
      digest =
          MessageDigest.getInstance("SHA-256")
              .digest(
                  root.toAbsolutePath().normalize().toString().getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    return runtime + "." + HexFormat.of().formatHex(digest, 0, 4);
  }

  /**
   * Everything a runtime's workload leaves behind lives under {@code state/} (home, output log,
   * executions' logs, shell state), so that one directory is what a checkpoint archives and what a
   * restore swaps in whole; {@code runtime.json} beside it describes the runtime itself.
   */
  static Path state(Path runtimeDirectory) {
    return runtimeDirectory.resolve("state");
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

  OutputLog output() {
    return output;
  }

  ControlLease lease() {
    return lease;
  }

  void write(byte[] input) {
    liveShell().write(input);
  }

  void resize(int columns, int rows) {
    liveShell().resize(columns, rows);
  }

  ExecutionView startExecution(ExecutionRequest request) {
    liveShell();
    return executions.orElseThrow().start(request);
  }

  List<ExecutionView> executions() {
    return executions.map(ExecutionRunner::list).orElse(List.of());
  }

  ExecutionView execution(ExecutionId id) {
    return executions
        .flatMap(runner -> runner.get(id))
        .orElseThrow(() -> new NotFoundException("execution " + id.value() + " of " + name()));
  }

  ExecutionView cancel(ExecutionId id) {
    execution(id);
    return executions.orElseThrow().cancel(id);
  }

  OutputLog executionOutput(ExecutionId id) {
    execution(id);
    OutputLog log = executionLogs.get(id);
    if (log == null) {
      throw new NotFoundException("output of execution " + id.value() + " of " + name());
    }
    return log;
  }

  /** What a checkpoint of this runtime preserves, for the archive's {@code contents}. */
  List<String> checkpointContents() {
    List<String> contents = new java.util.ArrayList<>(List.of("home", "tmp", "output"));
    shellState.ifPresent(state -> contents.addAll(state.contents()));
    return List.copyOf(contents);
  }

  /**
   * Takes the first half of a checkpoint: a fresh capture of the shell's state (bounded: a busy
   * shell gives its last prompt's), then the pause. Idempotent while paused.
   */
  void prepareCheckpoint() {
    synchronized (this) {
      if (state == RuntimeState.PAUSED) {
        return;
      }
      if (state != RuntimeState.RUNNING) {
        throw HostRefusal.shellExited(name());
      }
    }
    shell.ifPresent(process -> shellState.ifPresent(s -> s.capture(process, CAPTURE_TIMEOUT)));
    pause();
  }

  /** Streams the archive of {@code state/} (the runtime must be paused). */
  ArchiveSummary writeArchive(ArchiveIdentity identity, java.io.OutputStream out)
      throws java.io.IOException {
    synchronized (this) {
      if (state != RuntimeState.PAUSED) {
        throw new HostRefusal(
            409,
            "CONFLICT",
            "runtime " + name() + " is " + state.wire() + ", not paused for a checkpoint");
      }
    }
    return ArchiveWriter.write(state(directory), identity, out);
  }

  /**
   * Closes admission and stops the whole process tree (SIGSTOP) so that a checkpoint sees a state
   * that does not change under it. Idempotent while paused.
   */
  void pause() {
    synchronized (this) {
      if (state == RuntimeState.PAUSED) {
        return;
      }
      state = RuntimeState.TABLE.next(name(), state, RuntimeState.Event.PAUSE);
    }
    signalTree(Signals.SIGSTOP);
  }

  /** Reopens admission and continues the process tree (SIGCONT): the checkpoint was given up. */
  void unpause() {
    synchronized (this) {
      if (state != RuntimeState.PAUSED) {
        return;
      }
      state = RuntimeState.TABLE.next(name(), state, RuntimeState.Event.CONTINUE);
    }
    signalTree(Signals.SIGCONT);
  }

  private void signalTree(int signal) {
    plan.ifPresent(p -> p.processes().forEach(pid -> Signals.toProcess(pid, signal)));
  }

  /** Stops the workload for {@code reason} (lease expiry, maximum lifetime); never restarts it. */
  void stop(String reason) {
    synchronized (this) {
      if (state != RuntimeState.RUNNING && state != RuntimeState.PAUSED) {
        return;
      }
      state = RuntimeState.TABLE.next(name(), state, RuntimeState.Event.STOP);
      stopReason = Optional.of(reason);
    }
    stopProcesses();
  }

  /** Stops the workload for good; the tombstone was written before this is called. */
  void terminate() {
    synchronized (this) {
      if (state != RuntimeState.TERMINATED) {
        state = RuntimeState.TABLE.next(name(), state, RuntimeState.Event.TERMINATE);
      }
    }
    stopProcesses();
  }

  /** Ends everything of this runtime: its processes, then its logs (streams then end). */
  void close() {
    stopProcesses();
    output.close();
    executionLogs.values().forEach(OutputLog::close);
  }

  synchronized RuntimeView view() {
    Optional<ShellProcess> process = shell;
    return new RuntimeView(
        descriptor,
        state,
        process.map(p -> OptionalLong.of(p.pid())).orElse(OptionalLong.empty()),
        process.flatMap(
            p ->
                p.exitCode().isPresent() ? Optional.of(p.exitCode().getAsInt()) : Optional.empty()),
        state == RuntimeState.RUNNING && process.map(ShellProcess::busy).orElse(false),
        state == RuntimeState.RUNNING
            ? process.flatMap(ShellProcess::foregroundCommand)
            : Optional.empty(),
        output.lastAppendAt(),
        lease.state(),
        contract.record(),
        stopReason,
        // Without a plan (reloaded after a restart) it is what this host runs a runtime under: its
        // configured limits, not the defaults (IsolationReportTest).
        plan.map(LaunchPlan::isolation).orElse(sandbox.isolation(limits)),
        output.startOffset(),
        output.nextOffset(),
        process.map(ShellProcess::columns).orElse(80),
        process.map(ShellProcess::rows).orElse(24),
        executions.map(ExecutionRunner::anyRunning).orElse(false));
  }

  private String name() {
    return descriptor.runtime();
  }

  /*
   * Admission is checked first: from the lease's expiry to its renewal the protocol answers 409
   * LEASE_EXPIRED, also once the STOP policy has stopped the shell. Checked second, that case was a
   * 503 SHELL_EXITED, which tells the control plane to start a new runtime when what it has to do
   * is renew the lease (ControlLeaseThroughAgentApiTest).
   */
  private ShellProcess liveShell() {
    lease.checkAdmitting();
    synchronized (this) {
      if (state == RuntimeState.PAUSED) {
        throw new HostRefusal(
            409,
            "SUSPENDING",
            "runtime "
                + name()
                + " is being suspended and admits no input; retry once the session is a snapshot"
                + " (which a read or write then restores)");
      }
      if (state != RuntimeState.RUNNING || shell.isEmpty() || !shell.get().isAlive()) {
        throw HostRefusal.shellExited(name());
      }
    }
    return shell.get();
  }

  private void shellExited() {
    synchronized (this) {
      if (state == RuntimeState.RUNNING || state == RuntimeState.PAUSED) {
        state = RuntimeState.TABLE.next(name(), state, RuntimeState.Event.SHELL_EXITED);
      }
    }
  }

  private void stopProcesses() {
    // A paused tree would not act on SIGHUP until SIGKILL; let it hear the hang-up.
    signalTree(Signals.SIGCONT);
    executions.ifPresent(ExecutionRunner::close);
    shell.ifPresent(process -> process.terminate(STOP_GRACE));
    plan.ifPresent(LaunchPlan::close);
  }

  private OutputLog executionLog(ExecutionId id, HostConfig config, Clock clock) {
    OutputLog log =
        OutputLog.open(
            state(directory).resolve("executions").resolve(id.value()),
            config.executionOutputCapBytes(),
            clock);
    executionLogs.put(id, log);
    return log;
  }
}
