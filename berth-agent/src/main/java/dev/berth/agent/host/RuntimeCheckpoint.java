package dev.berth.agent.host;

import dev.berth.agent.archive.ArchiveIdentity;
import dev.berth.agent.archive.ArchiveLimits;
import dev.berth.agent.archive.ArchiveRestorer;
import dev.berth.agent.archive.ArchiveSummary;
import dev.berth.agent.archive.ArchiveWriter;
import dev.berth.agent.archive.Manifest;
import dev.berth.protocol.problem.AgentReason;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A runtime's checkpoints and restores, of its {@code state/} directory: an agent session's
 * accepted prompts are drained first, then the shell's state is captured and the tree paused
 * ({@link #prepare}), the archive streamed ({@link #write}) and either committed by the control
 * plane (which removes the runtime) or given up ({@link #abort}). A restore ({@link #restore})
 * brings an archive into a runtime that awaits it and starts the workload on it.
 */
final class RuntimeCheckpoint {

  /** How long a checkpoint waits for the shell to write a fresh capture of its state. */
  static final Duration CAPTURE_TIMEOUT = Duration.ofSeconds(2);

  /** How long a checkpoint of an agent session waits for its accepted prompts to run. */
  static final Duration PROMPT_DRAIN = Duration.ofMinutes(5);

  private final String runtime;
  private final String workloadType;
  private final RuntimeLifecycle lifecycle;
  private final Path state;
  private final HostConfig config;
  // The last archive streamed whole: the control plane asks what it left out before it commits.
  private volatile Optional<WrittenArchive> lastWritten = Optional.empty();

  RuntimeCheckpoint(
      String runtime,
      String workloadType,
      RuntimeLifecycle lifecycle,
      Path state,
      HostConfig config) {
    this.runtime = runtime;
    this.workloadType = workloadType;
    this.lifecycle = lifecycle;
    this.state = state;
    this.config = config;
  }

  /** What a checkpoint of this runtime preserves, for the archive's {@code contents}. */
  List<String> contents() {
    List<String> contents = new ArrayList<>(List.of("home", "tmp", "output"));
    lifecycle.workload().live().ifPresent(live -> contents.addAll(live.shellState().contents()));
    if (!workloadType.equals("shell")) {
      contents.addAll(List.of("workspace", "conversation", "transcript"));
    }
    return List.copyOf(contents);
  }

  /**
   * The first half of an agent session's checkpoint, before the host takes its locks: no new prompt
   * is admitted, and the accepted ones run (at most {@link #PROMPT_DRAIN}). Prompts still running
   * then refuse the checkpoint — the session stays active and admits prompts again. Nothing to do
   * for a shell, or for an agent runtime that is not running.
   */
  void drain() {
    Optional<Workload.Agent> agent;
    synchronized (lifecycle) {
      agent =
          lifecycle.state() == RuntimeState.RUNNING
              ? lifecycle.workload().agent()
              : Optional.empty();
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
      throw new HostRefusal(
          503, AgentReason.INTERRUPTED, "the checkpoint of " + runtime + " was interrupted");
    }
    if (!idle) {
      agent.get().prompts().openAdmission();
      throw RuntimeRefusals.promptsStillRunning(runtime, PROMPT_DRAIN);
    }
  }

  /** Takes prompts again after a drain whose checkpoint did not pause the runtime. */
  void reopenPrompts() {
    if (lifecycle.state() != RuntimeState.RUNNING) {
      return;
    }
    lifecycle.workload().agent().ifPresent(agent -> agent.prompts().openAdmission());
  }

  /**
   * Takes the first half of a checkpoint: a fresh capture of the shell's state (bounded: a busy
   * shell gives its last prompt's), then the pause. Idempotent while paused.
   */
  void prepare() {
    RuntimeState now = lifecycle.state();
    // Stopped (its processes died with a host that restarted, or the lease stopped them): nothing
    // runs that could change state/, which holds the shell state of its last prompt, so it is
    // archived as it is. A suspend the host's death interrupted still completes.
    if (now == RuntimeState.PAUSED || now == RuntimeState.STOPPED) {
      refuseWhatARestoreWouldRefuse();
      return;
    }
    Optional<Workload.Agent> agent;
    synchronized (lifecycle) {
      if (lifecycle.state() == RuntimeState.AWAITING_RESTORE) {
        throw RuntimeRefusals.restoring(runtime, "has nothing to checkpoint");
      }
      agent = lifecycle.workload().agent();
    }
    if (agent.isPresent()) {
      pauseDrained(agent.get());
      return;
    }
    Workload.Live live;
    synchronized (lifecycle) {
      Optional<Workload.Live> running = lifecycle.workload().live();
      if (lifecycle.state() != RuntimeState.RUNNING || running.isEmpty()) {
        throw HostRefusal.shellExited(runtime);
      }
      live = running.get();
    }
    // A shell that exited left its last capture (or none) in shell-state/: that is what a new
    // shell would start from, so it is what the archive keeps.
    if (live.shell().isAlive()) {
      live.shellState().capture(live.shell(), CAPTURE_TIMEOUT);
    }
    lifecycle.pause();
    refuseWhatARestoreWouldRefuse();
  }

  /** Gives the checkpoint up: the tree continues and admission reopens. */
  void abort() {
    lifecycle.unpause();
  }

  /** Streams the archive of {@code state/} (the runtime must be paused). */
  ArchiveSummary write(ArchiveIdentity identity, OutputStream out) throws IOException {
    synchronized (lifecycle) {
      RuntimeState now = lifecycle.state();
      if (now != RuntimeState.PAUSED && now != RuntimeState.STOPPED) {
        throw RuntimeRefusals.notPaused(runtime, now);
      }
    }
    ArchiveSummary summary = ArchiveWriter.write(state, identity, out);
    lastWritten = Optional.of(new WrittenArchive(identity.generation(), summary));
    return summary;
  }

  /** What the archive of {@code generation} left out, once it was written whole. */
  Optional<ArchiveSummary> written(long generation) {
    return lastWritten.filter(w -> w.generation() == generation).map(WrittenArchive::summary);
  }

  /**
   * The second half of a resume: restores {@code archive} over {@code state/} (staged, checked
   * against {@code expected} and swapped in whole, see {@link ArchiveRestorer}), then has {@code
   * start} open the output log where the archived one ended and start the workload on the restored
   * state. A refused or failed restore leaves the runtime awaiting and {@code state/} as it was. A
   * workload that cannot start on the restored tree leaves the runtime awaiting too, with that tree
   * in place: the next restore replaces it, as nothing ran in it.
   *
   * @throws HostRefusal 409 CONFLICT when the runtime is not awaiting an archive
   * @throws dev.berth.agent.archive.ArchiveException when the archive is unsafe or corrupt
   * @throws IOException when the archive stream breaks off or the disk fails
   */
  Restored restore(ArchiveIdentity expected, InputStream archive, Supplier<Workload> start)
      throws IOException {
    lifecycle.requireAwaiting("restore generation " + expected.generation() + " into it");
    CountedInput counted = new CountedInput(archive);
    Manifest manifest = ArchiveRestorer.restore(counted, state, expected, restoreLimits());
    Workload started = start.get();
    return new Restored(
        runtime,
        expected.generation(),
        counted.count(),
        manifest.files().size(),
        started.outputStart());
  }

  /** Pauses an agent runtime that {@link #drain} left idle, then checks its state. */
  private void pauseDrained(Workload.Agent agent) {
    if (agent.prompts().busy()) {
      // Not drained (the drain was skipped or a prompt was accepted before it): not now.
      agent.prompts().openAdmission();
      throw RuntimeRefusals.promptsStillRunning(runtime, PROMPT_DRAIN);
    }
    lifecycle.pause();
    refuseWhatARestoreWouldRefuse();
  }

  /**
   * An archive the restore of this session would refuse (too many entries, too many bytes, a file
   * too large) is refused now, while the session runs: the tree is thawed and the suspend fails
   * with the reason, instead of a snapshot that cannot come back.
   */
  private void refuseWhatARestoreWouldRefuse() {
    Optional<String> broken;
    try {
      broken = ArchiveWriter.plan(state).breaks(restoreLimits());
    } catch (IOException e) {
      lifecycle.unpause();
      throw new UncheckedIOException("cannot scan the state of " + runtime, e);
    }
    if (broken.isPresent()) {
      lifecycle.unpause();
      throw new HostRefusal(
          422,
          AgentReason.ARCHIVE_REFUSED,
          "runtime " + runtime + " cannot be snapshotted: " + broken.get());
    }
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

  private record WrittenArchive(long generation, ArchiveSummary summary) {}
}
