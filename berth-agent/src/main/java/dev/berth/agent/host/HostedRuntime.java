package dev.berth.agent.host;

import dev.berth.agent.agentcli.TranscriptLog;
import dev.berth.agent.archive.ArchiveIdentity;
import dev.berth.agent.archive.ArchiveLimits;
import dev.berth.agent.archive.ArchiveRestorer;
import dev.berth.agent.archive.ArchiveSummary;
import dev.berth.agent.archive.ArchiveWriter;
import dev.berth.agent.archive.Manifest;
import dev.berth.agent.contract.ControlLease;
import dev.berth.agent.contract.LocalContract;
import dev.berth.agent.execution.ExecutionOutputs;
import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.StateDisks;
import dev.berth.agent.output.OutputLog;
import dev.berth.agent.output.OutputSink;
import dev.berth.agent.shell.ShellProcess;
import dev.berth.agent.shell.ShellState;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One runtime incarnation on this host: its shell on a PTY, its output log, its executions and its
 * control lease, all under the runtime's {@code state/} directory ({@code home/}, {@code tmp/},
 * {@code shell-state/}, {@code output/}, {@code executions/}). The shell runs with the {@link
 * ShellState} integration, so that a runtime directory brought back from an archive starts a shell
 * that gets back its environment, working directory, functions, aliases and history. What is open
 * and running is one {@link Workload} value: a runtime provisioned for a resume awaits its archive
 * with nothing running until {@link #restore} installs the shell; a runtime found on disk after a
 * host restart is reloaded without a shell (its processes died with the host) and reported as
 * stopped, with its output still readable.
 */
final class HostedRuntime {

  /** How long a checkpoint waits for the shell to write a fresh capture of its state. */
  static final Duration CAPTURE_TIMEOUT = Duration.ofSeconds(2);

  /** How long a new shell waits for the exit of the one it replaces to be recorded. */
  private static final Duration EXIT_RECORD_TIMEOUT = Duration.ofSeconds(6);

  /** How long a checkpoint of an agent session waits for its accepted prompts to run. */
  static final Duration PROMPT_DRAIN = Duration.ofMinutes(5);

  private final Path directory;
  private final HostConfig config;
  private final Clock clock;
  private final Sandbox sandbox;
  private final NodeMeters meters;
  private final LocalContract contract;
  private final ControlLease lease;
  // An agent session's CLI and provider, from its provision: in memory only (AgentLaunch). A
  // runtime reloaded by a restarted host has none until its next provision brings it again.
  private volatile @Nullable AgentLaunch agentLaunch;
  private final Object pluginRefresh = new Object();

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(HostedRuntime.class);
  private final Map<ExecutionId, OutputLog> executionLogs = new ConcurrentHashMap<>();
  // Replaced (never changed in place) under this object's monitor; read without it.
  private volatile RuntimeDescriptor descriptor;
  private volatile Workload workload;
  private RuntimeState state;
  private Optional<String> stopReason = Optional.empty();
  private volatile String pendingStopReason = ControlLease.LEASE_EXPIRED;
  // The shell is one execution of the runtime, not the runtime: when it exits the runtime stays
  // RUNNING, the exit is written into the output, and the next input or attach starts a new shell.
  private int shellStarts;
  private Optional<ShellExit> lastShellExit = Optional.empty();
  // Per shell, completes once its exit was recorded and its marker written: a new shell waits for
  // the one of the shell it replaces, so that the old shell's last output and marker come first.
  private final Map<ShellProcess, java.util.concurrent.CompletableFuture<Void>> exitRecords =
      new ConcurrentHashMap<>();
  private final java.util.concurrent.locks.ReentrantLock shellStart =
      new java.util.concurrent.locks.ReentrantLock();
  // Set once the host closes the runtime: the shell it kills then is not announced as an exit.
  private volatile boolean closing;
  // A resize that came while no shell ran: {columns, rows} for the next one.
  private volatile int @Nullable [] pendingSize;
  // The last archive streamed whole: the control plane asks what it left out before it commits.
  private volatile Optional<WrittenArchive> lastWritten = Optional.empty();

  private HostedRuntime(
      RuntimeDescriptor descriptor,
      Path directory,
      HostConfig config,
      Sandbox sandbox,
      NodeMeters meters,
      LocalContract contract,
      Clock clock,
      Workload workload,
      RuntimeState state,
      @Nullable AgentLaunch agentLaunch) {
    this.agentLaunch = agentLaunch;
    this.descriptor = descriptor;
    this.directory = directory;
    this.config = config;
    this.clock = clock;
    this.sandbox = sandbox;
    this.meters = meters;
    this.contract = contract;
    this.workload = workload;
    this.state = state;
    this.lease =
        new ControlLease(
            clock,
            config.disconnectPolicy(),
            config.disconnectGrace(),
            config.maxLifetime(),
            () -> stop(pendingStopReason),
            reason -> pendingStopReason = reason);
  }

  /**
   * A new runtime: its shell starts at once, or, when the descriptor says so, nothing starts and
   * the runtime awaits its archive.
   */
  static HostedRuntime start(
      RuntimeDescriptor descriptor,
      Path directory,
      HostConfig config,
      Sandbox sandbox,
      NodeMeters meters,
      LocalContract contract,
      Clock clock,
      @Nullable AgentLaunch agentLaunch) {
    HostedRuntime runtime =
        new HostedRuntime(
            descriptor,
            directory,
            config,
            sandbox,
            meters,
            contract,
            clock,
            new Workload.Awaiting(),
            RuntimeState.AWAITING_RESTORE,
            agentLaunch);
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
      RuntimeDescriptor descriptor,
      Path directory,
      HostConfig config,
      Sandbox sandbox,
      NodeMeters meters,
      LocalContract contract,
      Clock clock)
      throws IOException {
    if (descriptor.awaitRestore()) {
      ArchiveRestorer.recover(state(directory));
      return new HostedRuntime(
          descriptor,
          directory,
          config,
          sandbox,
          meters,
          contract,
          clock,
          new Workload.Awaiting(),
          RuntimeState.AWAITING_RESTORE,
          null);
    }
    long cap =
        descriptor.workload().equals("shell")
            ? config.outputCapBytes()
            : AgentWorkload.logCap(config);
    OutputLog output = OutputLog.open(state(directory).resolve("output"), cap, clock);
    HostedRuntime runtime =
        new HostedRuntime(
            descriptor,
            directory,
            config,
            sandbox,
            meters,
            contract,
            clock,
            new Workload.Remains(output),
            RuntimeState.STOPPED,
            null);
    runtime.stopReason = Optional.of("HOST_RESTARTED");
    return runtime;
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
    return runtime
        + "."
        + dev.berth.core.digest.Sha256.hexPrefix(root.toAbsolutePath().normalize().toString(), 4);
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

  /** The shell's output log; none while the runtime awaits its archive. */
  OutputLog output() {
    return workload.log().orElseThrow(() -> restoring("has no output yet"));
  }

  ControlLease lease() {
    return lease;
  }

  void write(byte[] input) {
    try {
      shellForInput().shell().write(input);
    } catch (dev.berth.agent.shell.ShellExitedException exitedJustNow) {
      // It died between the check and the write: the input goes to its successor.
      shellForInput().shell().write(input);
    }
  }

  /** A resize reaches the running shell; with none, the next one starts at the size it had. */
  void resize(int columns, int rows) {
    dev.berth.agent.shell.ShellSpec.checkSize(columns, rows);
    Workload.Live live = admitted();
    try {
      live.shell().resize(columns, rows);
    } catch (dev.berth.agent.shell.ShellExitedException noShell) {
      // No shell to tell now: the next one starts at this size.
      pendingSize = new int[] {columns, rows};
    }
  }

  /**
   * What an attach does first: a runtime whose shell exited gets a new one, so that the terminal
   * opens on a prompt. A runtime that admits nothing (paused, stopped, awaiting) is left alone.
   */
  void ensureShell() {
    shellForInput();
  }

  /** How the last shell that ended ended, if one did since the runtime started. */
  synchronized Optional<ShellExit> lastShellExit() {
    return lastShellExit;
  }

  /** Executions run in the runtime's sandbox beside the shell, whether or not the shell runs. */
  ExecutionView startExecution(ExecutionRequest request) {
    return admitted().executions().start(request);
  }

  /** The shell's commands, or an agent session's prompts. */
  List<ExecutionView> executions() {
    Workload current = workload;
    if (current instanceof Workload.Agent agent) {
      return agent.prompts().list();
    }
    return current.live().map(live -> live.executions().list()).orElse(List.of());
  }

  ExecutionView execution(ExecutionId id) {
    Workload current = workload;
    Optional<ExecutionView> found =
        current instanceof Workload.Agent agent
            ? agent.prompts().get(id)
            : current.live().flatMap(live -> live.executions().get(id));
    return found.orElseThrow(
        () -> new NotFoundException("execution " + id.value() + " of " + name()));
  }

  ExecutionView cancel(ExecutionId id) {
    execution(id);
    Workload current = workload;
    if (current instanceof Workload.Agent agent) {
      return agent.prompts().cancel(id);
    }
    return current.live().orElseThrow().executions().cancel(id);
  }

  /**
   * Queues a prompt of an agent session; its execution, {@code QUEUED}.
   *
   * @throws HostRefusal 409 NOT_AN_AGENT for a shell session, 409 SUSPENDING while a checkpoint
   *     drains or holds the session, 409 RESTORING while it awaits its archive
   */
  ExecutionView prompt(String prompt, String permissionMode) {
    Workload.Agent agent = admittedAgent();
    // The session's model, fixed at create: a turn does not choose its own.
    Optional<String> model = agentLaunch == null ? Optional.empty() : agentLaunch.turnModel();
    return agent.prompts().submit(new dev.berth.agent.agentcli.Turn(prompt, model, permissionMode));
  }

  /**
   * Replaces the session's plugin copies with the marketplace's plugins as they are now (see {@link
   * PluginCopies}): staged first, then swapped in while the runner holds the session between
   * prompts with no process of it left, then the old copies deleted. The conversation is kept. One
   * refresh of a runtime at a time: they share its work area.
   *
   * @return the plugins refreshed; none for a session created without plugins
   * @throws HostRefusal as {@link #prompt} does, and 409 PROMPTS_RUNNING while a prompt runs or
   *     waits, or a process of the last one does not end
   */
  List<String> refreshPlugins() {
    Workload.Agent agent = admittedAgent();
    List<AgentLaunch.Plugin> plugins = agentLaunch == null ? List.of() : agentLaunch.plugins();
    if (plugins.isEmpty()) {
      return List.of();
    }
    Path state = state(directory);
    synchronized (pluginRefresh) {
      try (PluginCopies.Refresh refresh =
          PluginCopies.prepare(
              plugins,
              dev.berth.agent.agentcli.AgentPaths.under(state).plugins(),
              state.resolve(PluginCopies.WORK),
              name(),
              agent.plan()::giveToWorkload)) {
        return agent
            .prompts()
            .whileIdle(
                () -> {
                  requireNoProcess(agent.plan());
                  return refresh.swap();
                });
      } catch (dev.berth.agent.agentcli.PromptRunner.BusyException busy) {
        throw new HostRefusal(
            409,
            "PROMPTS_RUNNING",
            "runtime "
                + name()
                + " "
                + busy.getMessage()
                + ": its plugins are refreshed between prompts; retry once they have run (or cancel"
                + " them)");
      } catch (IllegalStateException closed) {
        throw new HostRefusal(503, "STOPPED", "runtime " + name() + " was stopped: " + closed);
      }
    }
  }

  /**
   * Between prompts no process of an agent session runs (each prompt's CLI runs in a PID namespace
   * that ends with it); what a run left is killed here, and a session whose processes do not end is
   * not written into.
   */
  private void requireNoProcess(LaunchPlan plan) {
    if (plan.processes().isEmpty()) {
      return;
    }
    LOG.warn("runtime {} still had processes between prompts; they are killed", name());
    plan.killAll();
    // A killed cgroup empties a moment later: wait for it rather than refuse what is dying.
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
    java.util.Set<Long> left = plan.processes();
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(
          java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(20));
      left = plan.processes();
    }
    if (!left.isEmpty()) {
      throw new HostRefusal(
          409,
          "PROMPTS_RUNNING",
          "runtime "
              + name()
              + " still has processes of its last prompt ("
              + left
              + ") that did not end when killed; retry the refresh shortly");
    }
  }

  /**
   * Up to {@code max} transcript entries after {@code cursor}. A runtime found on disk after a host
   * restart still shows its transcript; one awaiting its archive has none yet.
   */
  List<tools.jackson.databind.JsonNode> transcript(long cursor, int max) {
    Workload current = workload;
    if (current instanceof Workload.Agent agent) {
      return agent.transcript().after(cursor, max);
    }
    if (descriptor.workload().equals("shell")) {
      throw notAnAgent("has no transcript");
    }
    if (current instanceof Workload.Awaiting) {
      throw restoring("has no transcript yet");
    }
    return dev.berth.agent.agentcli.TranscriptLog.read(state(directory), clock).after(cursor, max);
  }

  /** Waits up to {@code wait} for an entry after {@code cursor}; whether one came. */
  boolean awaitTranscript(long cursor, Duration wait) throws InterruptedException {
    Optional<Workload.Agent> agent = workload.agent();
    if (agent.isEmpty()) {
      Thread.sleep(wait.toMillis());
      return false;
    }
    TranscriptLog transcript = agent.get().transcript();
    // Asked after an empty page: a closed log has nothing more to give, whatever it counted.
    boolean more = !transcript.closed() && transcript.awaitBeyond(cursor, wait);
    if (transcript.closed()) {
      throw new NotFoundException("transcript of " + name() + ", which is being removed");
    }
    return more;
  }

  OutputLog executionOutput(ExecutionId id) {
    execution(id);
    OutputLog log = executionLogs.get(id);
    if (log == null) {
      throw new NotFoundException("output of execution " + id.value() + " of " + name());
    }
    return log;
  }

  /**
   * The second half of a resume: restores {@code archive} over {@code state/} (staged, checked
   * against {@code expected} and swapped in whole, see {@link ArchiveRestorer}), then opens the
   * output log where the archived one ended and starts the shell on the restored state. A refused
   * or failed restore leaves the runtime awaiting and {@code state/} as it was. A shell that cannot
   * start on the restored tree leaves the runtime awaiting too, with that tree in place: the next
   * restore replaces it, as nothing ran in it.
   *
   * @throws HostRefusal 409 CONFLICT when the runtime is not awaiting an archive
   * @throws dev.berth.agent.archive.ArchiveException when the archive is unsafe or corrupt
   * @throws IOException when the archive stream breaks off or the disk fails
   */
  Restored restore(ArchiveIdentity expected, InputStream archive) throws IOException {
    requireAwaiting("restore generation " + expected.generation() + " into it");
    CountedInput counted = new CountedInput(archive);
    Manifest manifest =
        ArchiveRestorer.restore(counted, state(directory), expected, restoreLimits());
    Workload started = startWorkload();
    try {
      // Once the shell ran, a host restart must not let the runtime await an archive again.
      RuntimeDescriptor restored = descriptor.restored();
      restored.write(directory);
      descriptor = restored;
      install(started);
    } catch (RuntimeException e) {
      started.stop();
      started.log().ifPresent(OutputLog::close);
      throw e;
    }
    return new Restored(
        name(),
        expected.generation(),
        counted.count(),
        manifest.files().size(),
        started.outputStart());
  }

  /**
   * What a restore into this runtime accepts: whatever the session could have written (its disk cap
   * with the host's reserve, files as large as its file size limit), so that every archive of a
   * session restores into a runtime of the same limits. Where the disk is capped, the cap is what
   * bounds a decompression bomb, and the ratio check would refuse an honest file of zeros (a disk
   * image, a preallocated database), so it applies only past the cap; where it is not, the ratio
   * check stays.
   */
  private ArchiveLimits restoreLimits() {
    ArchiveLimits defaults = ArchiveLimits.defaults();
    long total =
        Math.max(
            defaults.maxTotalBytes(), config.limits().maxDiskBytes() + config.diskReserveBytes());
    ArchiveLimits fit =
        defaults
            .withMaxTotalBytes(total)
            .withMaxEntryBytes(
                Math.max(defaults.maxEntryBytes(), config.limits().maxFileSizeBytes()));
    // The archive store is the control plane's and every archive's digest is checked; what bounds a
    // decompression bomb is then the total, which is what the session could have written anyway.
    return fit.withRatioGraceBytes(total);
  }

  /** What a checkpoint of this runtime preserves, for the archive's {@code contents}. */
  List<String> checkpointContents() {
    List<String> contents = new java.util.ArrayList<>(List.of("home", "tmp", "output"));
    workload.live().ifPresent(live -> contents.addAll(live.shellState().contents()));
    if (!descriptor.workload().equals("shell")) {
      contents.addAll(List.of("workspace", "conversation", "transcript"));
    }
    return List.copyOf(contents);
  }

  /**
   * Takes the first half of a checkpoint: a fresh capture of the shell's state (bounded: a busy
   * shell gives its last prompt's), then the pause. Idempotent while paused.
   */
  void prepareCheckpoint() {
    Workload.Live live;
    boolean still;
    synchronized (this) {
      // Stopped (its processes died with a host that restarted, or the lease stopped them):
      // nothing runs that could change state/, which holds the shell state of its last prompt,
      // so it is archived as it is. A suspend the host's death interrupted still completes.
      still = state == RuntimeState.PAUSED || state == RuntimeState.STOPPED;
    }
    if (still) {
      refuseWhatARestoreWouldRefuse();
      return;
    }
    Optional<Workload.Agent> agent;
    synchronized (this) {
      if (state == RuntimeState.AWAITING_RESTORE) {
        throw restoring("has nothing to checkpoint");
      }
      agent = workload.agent();
    }
    if (agent.isPresent()) {
      pauseDrained(agent.get());
      return;
    }
    synchronized (this) {
      if (state != RuntimeState.RUNNING || workload.live().isEmpty()) {
        throw HostRefusal.shellExited(name());
      }
      live = workload.live().get();
    }
    // A shell that exited left its last capture (or none) in shell-state/: that is what a new
    // shell would start from, so it is what the archive keeps.
    if (live.shell().isAlive()) {
      live.shellState().capture(live.shell(), CAPTURE_TIMEOUT);
    }
    pause();
    refuseWhatARestoreWouldRefuse();
  }

  /**
   * The first half of an agent session's checkpoint, before the host takes its locks: no new prompt
   * is admitted, and the accepted ones run (at most {@link #PROMPT_DRAIN}). Prompts still running
   * then refuse the checkpoint — the session stays active and admits prompts again. Nothing to do
   * for a shell, or for an agent runtime that is not running.
   */
  void drainForCheckpoint() {
    Optional<Workload.Agent> agent;
    synchronized (this) {
      agent = state == RuntimeState.RUNNING ? workload.agent() : Optional.empty();
    }
    if (agent.isEmpty()) {
      return;
    }
    agent.get().prompts().closeAdmission();
    boolean idle;
    try {
      idle = agent.get().prompts().awaitIdle(PROMPT_DRAIN);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      agent.get().prompts().openAdmission();
      throw new HostRefusal(503, "INTERRUPTED", "the checkpoint of " + name() + " was interrupted");
    }
    if (!idle) {
      agent.get().prompts().openAdmission();
      throw promptsRunning();
    }
  }

  /** Takes prompts again after a drain whose checkpoint did not pause the runtime. */
  void reopenPrompts() {
    synchronized (this) {
      if (state != RuntimeState.RUNNING) {
        return;
      }
    }
    workload.agent().ifPresent(agent -> agent.prompts().openAdmission());
  }

  /** Pauses an agent runtime that {@link #drainForCheckpoint} left idle, then checks its state. */
  private void pauseDrained(Workload.Agent agent) {
    if (agent.prompts().busy()) {
      // Not drained (the drain was skipped or a prompt was accepted before it): not now.
      agent.prompts().openAdmission();
      throw promptsRunning();
    }
    pause();
    refuseWhatARestoreWouldRefuse();
  }

  private HostRefusal promptsRunning() {
    return new HostRefusal(
        409,
        "PROMPTS_RUNNING",
        "runtime "
            + name()
            + " still runs its accepted prompts after "
            + PROMPT_DRAIN.toMinutes()
            + " min, so it cannot be snapshotted now; the session stays active (retry the snapshot"
            + " later, or cancel the running prompt)");
  }

  /**
   * An archive the restore of this session would refuse (too many entries, too many bytes, a file
   * too large) is refused now, while the session runs: the tree is thawed and the suspend fails
   * with the reason, instead of a snapshot that cannot come back.
   */
  private void refuseWhatARestoreWouldRefuse() {
    Optional<String> broken;
    try {
      broken = ArchiveWriter.plan(state(directory)).breaks(restoreLimits());
    } catch (IOException e) {
      unpause();
      throw new java.io.UncheckedIOException("cannot scan the state of " + name(), e);
    }
    if (broken.isPresent()) {
      unpause();
      throw new HostRefusal(
          422, "ARCHIVE_REFUSED", "runtime " + name() + " cannot be snapshotted: " + broken.get());
    }
  }

  /** Streams the archive of {@code state/} (the runtime must be paused). */
  ArchiveSummary writeArchive(ArchiveIdentity identity, java.io.OutputStream out)
      throws IOException {
    synchronized (this) {
      if (state != RuntimeState.PAUSED && state != RuntimeState.STOPPED) {
        throw new HostRefusal(
            409,
            "CONFLICT",
            "runtime " + name() + " is " + state.wire() + ", not paused for a checkpoint");
      }
    }
    ArchiveSummary summary = ArchiveWriter.write(state(directory), identity, out);
    lastWritten = Optional.of(new WrittenArchive(identity.generation(), summary));
    return summary;
  }

  /** What the archive of {@code generation} left out, once it was written whole. */
  Optional<ArchiveSummary> writtenArchive(long generation) {
    return lastWritten.filter(w -> w.generation() == generation).map(WrittenArchive::summary);
  }

  private record WrittenArchive(long generation, ArchiveSummary summary) {}

  /**
   * Closes admission and freezes the whole process tree (the cgroup freezer, else SIGSTOP) so that
   * a checkpoint sees a state that does not change under it. Idempotent while paused.
   */
  void pause() {
    synchronized (this) {
      if (state == RuntimeState.PAUSED) {
        return;
      }
      state = RuntimeState.TABLE.next(name(), state, RuntimeState.Event.PAUSE);
    }
    workload.launchPlan().ifPresent(LaunchPlan::freeze);
  }

  /** Reopens admission and thaws the process tree: the checkpoint was given up. */
  void unpause() {
    synchronized (this) {
      if (state != RuntimeState.PAUSED) {
        return;
      }
      state = RuntimeState.TABLE.next(name(), state, RuntimeState.Event.CONTINUE);
    }
    workload.launchPlan().ifPresent(LaunchPlan::thaw);
    workload.agent().ifPresent(agent -> agent.prompts().openAdmission());
  }

  /** Takes the agent launch a provision brings, when this runtime has none (a host restarted). */
  void adoptAgent(@Nullable AgentLaunch launch) {
    if (launch != null && agentLaunch == null) {
      agentLaunch = launch;
    }
  }

  /**
   * Stops the workload for {@code reason} (lease expiry, maximum lifetime); never restarts it. A
   * runtime awaiting its archive is stopped too: it then refuses the restore.
   */
  void stop(String reason) {
    synchronized (this) {
      if (!RuntimeState.TABLE.allows(state, RuntimeState.Event.STOP)) {
        return;
      }
      state = RuntimeState.TABLE.next(name(), state, RuntimeState.Event.STOP);
      stopReason = Optional.of(reason);
    }
    workload.stop();
  }

  /** Stops the workload for good; the tombstone was written before this is called. */
  void terminate() {
    synchronized (this) {
      if (state != RuntimeState.TERMINATED) {
        state = RuntimeState.TABLE.next(name(), state, RuntimeState.Event.TERMINATE);
      }
    }
    workload.stop();
  }

  /** Ends everything of this runtime: its processes, then its logs (streams then end). */
  void close() {
    Workload current;
    synchronized (this) {
      // Under the monitor: a shell starting now sees it and is not installed.
      closing = true;
      current = workload;
    }
    current.stop();
    current.log().ifPresent(OutputLog::close);
    current.agent().ifPresent(agent -> agent.transcript().close());
    executionLogs.values().forEach(OutputLog::close);
  }

  /** Whether this runtime's shell is alive: read without the monitor, as a scrape does. */
  boolean shellAlive() {
    return workload.live().map(live -> live.shell().isAlive()).orElse(false);
  }

  /** How many of this runtime's executions run now (none for an agent session). */
  int executionsRunning() {
    return workload.live().map(live -> live.executions().running()).orElse(0);
  }

  synchronized RuntimeView view() {
    Optional<Workload.Live> live = workload.live();
    Optional<ShellProcess> process = live.map(Workload.Live::shell);
    Optional<OutputLog> output = workload.log();
    return new RuntimeView(
        descriptor,
        state,
        process.map(p -> OptionalLong.of(p.pid())).orElse(OptionalLong.empty()),
        process.map(ShellProcess::isAlive).orElse(false),
        shellStarts,
        lastShellExit,
        state == RuntimeState.RUNNING && process.map(ShellProcess::busy).orElse(false),
        state == RuntimeState.RUNNING
            ? process.flatMap(ShellProcess::foregroundCommand)
            : Optional.empty(),
        output.flatMap(OutputLog::lastAppendAt),
        lease.state(),
        contract.record(),
        stopReason,
        // Without a plan (awaiting, or reloaded after a restart) it is what this host runs a
        // runtime under: its configured limits, not the defaults (IsolationReportTest).
        workload.launchPlan().map(LaunchPlan::isolation).orElse(sandbox.isolation(config.limits())),
        sandbox.disks().usage(directory, config.limits().maxDiskBytes()),
        output.map(OutputLog::startOffset).orElse(0L),
        output.map(OutputLog::nextOffset).orElse(0L),
        process.map(ShellProcess::columns).orElse(80),
        process.map(ShellProcess::rows).orElse(24),
        // A prompt that runs or waits holds an agent session as a running command holds a shell.
        live.map(l -> l.executions().anyRunning())
            .orElse(workload.agent().map(a -> a.prompts().busy()).orElse(false)));
  }

  private String name() {
    return descriptor.runtime();
  }

  /** The workload the descriptor names: a shell, or an agent session with its launch. */
  private Workload startWorkload() {
    if (descriptor.workload().equals("shell")) {
      return startLive();
    }
    if (agentLaunch == null) {
      throw new HostRefusal(
          409,
          "AGENT_MISSING",
          "runtime "
              + name()
              + " runs "
              + descriptor.workload()
              + " but was provisioned without its agent; provision a new incarnation");
    }
    return AgentWorkload.start(
        descriptor.sessionId(),
        state(directory),
        proxySocket(),
        planName(name(), config.root()),
        config,
        sandbox,
        agentLaunch,
        descriptor.workload(),
        clock,
        meters);
  }

  /**
   * The credential proxy's socket: under the host's root, never under {@code state/}, and short (a
   * Unix socket's path is at most 107 bytes), named by a digest of the runtime's directory.
   */
  private Path proxySocket() {
    Path dir = config.root().resolve("proxies");
    try {
      dev.berth.protocol.files.PrivateFiles.createDirectories(dir);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot create " + dir, e);
    }
    return dir.resolve(
        dev.berth.core.digest.Sha256.hexPrefix(directory.toAbsolutePath().toString(), 8) + ".sock");
  }

  private Workload.Live startLive() {
    return ShellWorkload.start(
        descriptor.sessionId(),
        state(directory),
        planName(name(), config.root()),
        config,
        sandbox,
        descriptor.networkLimit(),
        clock,
        new ExecutionOutputs() {
          @Override
          public OutputSink open(ExecutionId id) {
            return new MeteredSink(executionLog(id), NodeMeters.OutputKind.EXECUTION, meters);
          }

          @Override
          public void finished(ExecutionId id) {
            OutputLog log = executionLogs.get(id);
            if (log != null) {
              log.close();
            }
          }
        },
        meters);
  }

  /**
   * Makes {@code live} the runtime's workload, from awaiting to running (a fresh runtime is created
   * awaiting and given its shell before anyone sees it). A runtime that was stopped or terminated
   * meanwhile (a lease expiry during a long restore) keeps its state, and the shell that would have
   * run in it is not installed.
   */
  private void install(Workload started) {
    synchronized (this) {
      if (state != RuntimeState.AWAITING_RESTORE) {
        throw notAwaiting("start a shell in it");
      }
      state = RuntimeState.TABLE.next(name(), state, RuntimeState.Event.SHELL_STARTED);
      workload = started;
      if (started instanceof Workload.Live) {
        shellStarts++;
      }
    }
    if (started instanceof Workload.Live live) {
      watchExit(live.shell());
    }
  }

  private HostRefusal notAnAgent(String what) {
    return new HostRefusal(
        409,
        "NOT_AN_AGENT",
        "runtime "
            + name()
            + " runs a shell and "
            + what
            + "; prompts and plugins are for agent sessions");
  }

  private void watchExit(ShellProcess shell) {
    exitRecords.put(shell, shell.onExit().thenAccept(status -> shellExited(shell, status)));
  }

  private synchronized void requireAwaiting(String action) {
    if (state != RuntimeState.AWAITING_RESTORE) {
      throw notAwaiting(action);
    }
  }

  private HostRefusal notAwaiting(String action) {
    return new HostRefusal(
        409,
        "CONFLICT",
        "runtime "
            + name()
            + " is "
            + state.wire()
            + ", not awaiting an archive, so nothing may "
            + action
            + "; a restore goes to a runtime provisioned with awaitRestore (remove this one and"
            + " provision a new incarnation)");
  }

  private HostRefusal restoring(String what) {
    return new HostRefusal(
        409,
        "RESTORING",
        "runtime "
            + name()
            + " awaits the archive it is resumed from and "
            + what
            + "; retry once the restore is done");
  }

  /*
   * Admission is checked first: from the lease's expiry to its renewal the protocol answers 409
   * LEASE_EXPIRED, also once the STOP policy has stopped the shell. Checked second, that case was a
   * 503 SHELL_EXITED, which tells the control plane to start a new runtime when what it has to do
   * is renew the lease (ControlLeaseThroughAgentApiTest).
   */
  /**
   * The running shell, or a new one in place of one that exited: the first input after an exit
   * starts a shell in the same runtime (same home, {@code /tmp} and sandbox), says so in the
   * output, and is then written to it.
   */
  private Workload.Live shellForInput() {
    Workload.Live live = admitted();
    if (live.shell().isAlive()) {
      return live;
    }
    // Starters queue here, never on the runtime's monitor: status, leases and stops do not wait
    // for a shell to start (its shell state is prepared in a directory the workload writes).
    shellStart.lock();
    try {
      Workload.Live current = admitted();
      if (current.shell().isAlive()) {
        return current;
      }
      awaitExitRecorded(current.shell());
      int[] size = pendingSize;
      int columns = size != null ? size[0] : current.shell().columns();
      int rows = size != null ? size[1] : current.shell().rows();
      pendingSize = null;
      byte[] notice =
          ("[berth] a new shell starts (shell " + (shellStarts + 1) + " of this runtime)\r\n")
              .getBytes(StandardCharsets.UTF_8);
      current.output().append(notice, 0, notice.length);
      Workload.Live next = current.withNewShell();
      boolean installed;
      synchronized (this) {
        installed = state == RuntimeState.RUNNING && !closing && workload == current;
        if (installed) {
          workload = next;
          shellStarts++;
        }
      }
      if (!installed) {
        // Stopped, terminated or closed meanwhile: the new shell must not outlive its runtime.
        next.shell().terminate(Workload.STOP_GRACE);
        throw HostRefusal.shellExited(name());
      }
      exitRecords.remove(current.shell());
      next.shell().resize(columns, rows);
      watchExit(next.shell());
      return next;
    } finally {
      shellStart.unlock();
    }
  }

  /** Until the exit of {@code shell} (which is dead) was recorded and its marker written. */
  private void awaitExitRecorded(ShellProcess shell) {
    java.util.concurrent.CompletableFuture<Void> recorded = exitRecords.get(shell);
    if (recorded == null) {
      return;
    }
    try {
      recorded.get(EXIT_RECORD_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw HostRefusal.shellExited(name());
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // The old shell's output did not drain in time: the new shell starts all the same.
    }
  }

  /*
   * The workload, when the runtime admits input: running (its shell may have exited), not paused,
   * awaiting, stopped or terminated.
   */
  private Workload.Live admitted() {
    lease.checkAdmitting();
    synchronized (this) {
      if (workload instanceof Workload.Agent) {
        throw new HostRefusal(
            409,
            "NOT_A_SHELL",
            "runtime "
                + name()
                + " runs "
                + descriptor.workload()
                + ": it takes prompts (POST /v1/sessions/{sid}/prompts), not terminal input or"
                + " commands");
      }
      if (state == RuntimeState.AWAITING_RESTORE) {
        throw restoring("runs no shell yet");
      }
      if (state == RuntimeState.PAUSED) {
        throw suspending("input", "a read or write");
      }
      Optional<Workload.Live> live = workload.live();
      if (state != RuntimeState.RUNNING || live.isEmpty()) {
        throw HostRefusal.shellExited(name());
      }
      return live.get();
    }
  }

  private HostRefusal suspending(String what, String restoredBy) {
    return new HostRefusal(
        409,
        "SUSPENDING",
        "runtime "
            + name()
            + " is being suspended and admits no "
            + what
            + "; retry once the session is a snapshot (which "
            + restoredBy
            + " then restores)");
  }

  /** The agent's parts, when the runtime admits a prompt (as {@link #admitted} for input). */
  private Workload.Agent admittedAgent() {
    lease.checkAdmitting();
    synchronized (this) {
      if (descriptor.workload().equals("shell")) {
        throw notAnAgent("takes no prompts");
      }
      if (state == RuntimeState.AWAITING_RESTORE) {
        throw restoring("admits no prompt yet");
      }
      if (state == RuntimeState.PAUSED) {
        throw suspending("prompt", "a write");
      }
      Optional<Workload.Agent> agent = workload.agent();
      if (state != RuntimeState.RUNNING || agent.isEmpty()) {
        throw new HostRefusal(
            503, "STOPPED", "runtime " + name() + " is " + state.wire() + " and runs no prompts");
      }
      return agent.get();
    }
  }

  /**
   * The shell of the current workload ended by itself ({@code exit}, Ctrl-D, killed, out of
   * memory): the runtime stays running, and the exit goes into the output as one marker line after
   * everything the shell wrote. A shell the host ended (stop, terminate, close) is not announced.
   */
  private void shellExited(ShellProcess shell, int status) {
    ShellExit exit;
    OutputLog output;
    synchronized (this) {
      Optional<Workload.Live> live = workload.live();
      if (live.isEmpty() || live.get().shell() != shell) {
        return;
      }
      exit = new ShellExit(status, clock.instant(), shellStarts, -1);
      lastShellExit = Optional.of(exit);
      if (state != RuntimeState.RUNNING || closing) {
        return;
      }
      output = live.get().output();
    }
    byte[] marker = exit.marker().getBytes(StandardCharsets.UTF_8);
    try {
      output.append(marker, 0, marker.length);
    } catch (RuntimeException closedMeanwhile) {
      return; // The runtime is being removed: its output ends without the marker.
    }
    synchronized (this) {
      if (lastShellExit.equals(Optional.of(exit))) {
        lastShellExit =
            Optional.of(new ShellExit(status, exit.at(), exit.shell(), output.nextOffset()));
      }
    }
  }

  private OutputLog executionLog(ExecutionId id) {
    OutputLog log =
        OutputLog.open(
            state(directory).resolve("executions").resolve(id.value()),
            config.executionOutputCapBytes(),
            clock);
    executionLogs.put(id, log);
    return log;
  }
}
