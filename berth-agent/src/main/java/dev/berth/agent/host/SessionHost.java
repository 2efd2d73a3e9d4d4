package dev.berth.agent.host;

import dev.berth.agent.archive.ArchiveIdentity;
import dev.berth.agent.archive.Trees;
import dev.berth.agent.contract.LocalContract;
import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.isolation.Isolation;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.StateDisks;
import dev.berth.agent.output.OutputLog;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionRequest;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.contract.CommandHeaders;
import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hosts session runtimes: at most one per session at a time, each with its contract (intent
 * versions, tombstone) kept beside it, outside the runtime's own directory, so that a stale or
 * post-termination command is refused even after the runtime was removed or the host restarted.
 *
 * <p>Layout: {@code <root>/sessions/<sid>/contract.json} and {@code
 * <root>/sessions/<sid>/runtimes/<runtime>/{runtime.json,volume.img,volume.cap,
 * volume/state/{home,tmp,shell-state,output,executions}}}, where {@code volume/} is the mount of
 * the runtime's own disk image ({@link StateDisks}). Commands on one session are serialized by that
 * session's lock; sessions never wait for each other. Every directory down to {@code state/}, and
 * the host's own files, are private to the host's user (0700 and 0600); what {@code home}, {@code
 * tmp} and {@code shell-state} get is the workload's business.
 */
public final class SessionHost implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SessionHost.class);

  private final HostConfig config;
  private final Clock clock;
  private final Sandbox sandbox;
  private final NodeMeters meters;
  private final SessionContracts contracts;
  private final ConcurrentMap<SessionId, HostedRuntime> runtimes = new ConcurrentHashMap<>();
  private final SessionLocks locks = new SessionLocks();
  private final ScheduledExecutorService ticker;
  private final Optional<SessionId> only;

  private SessionHost(
      HostConfig config,
      Clock clock,
      Sandbox sandbox,
      NodeMeters meters,
      Optional<SessionId> only) {
    this.config = config;
    this.clock = clock;
    this.sandbox = sandbox;
    this.meters = meters;
    this.only = only;
    this.contracts = new SessionContracts(config, clock);
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("berth-host-ticker").unstarted(r));
  }

  /** Opens the host on its root directory and reloads the runtimes a previous host left there. */
  public static SessionHost open(HostConfig config, Clock clock) {
    return open(config, clock, NodeMeters.NONE);
  }

  /** As {@link #open(HostConfig, Clock)}, reporting what happens to {@code meters}. */
  public static SessionHost open(HostConfig config, Clock clock, NodeMeters meters) {
    return open(config, clock, meters, Optional.empty());
  }

  /**
   * Opens a host that serves exactly one session ({@code berth agent}, the pod case): every other
   * session is refused.
   */
  public static SessionHost openFor(SessionId session, HostConfig config, Clock clock) {
    return open(config, clock, NodeMeters.NONE, Optional.of(session));
  }

  private static SessionHost open(
      HostConfig config, Clock clock, NodeMeters meters, Optional<SessionId> only) {
    SessionHost host =
        new SessionHost(
            config,
            clock,
            Sandbox.detect(
                Path.of("/sys/fs/cgroup"), config.sandbox(), config.root().resolve("uids")),
            meters,
            only);
    host.reload();
    var unused = host.ticker.scheduleWithFixedDelay(host::tick, 1, 1, TimeUnit.SECONDS);
    return host;
  }

  /** What a runtime provisioned now would run under: the host's sandbox with its limits. */
  public Isolation isolation() {
    return sandbox.isolation(config.limits());
  }

  public Instant now() {
    return clock.instant();
  }

  /** The outcome of a provision: the runtime, and whether this call created it. */
  public record Provisioned(RuntimeView view, boolean created) {}

  /**
   * Creates the runtime {@code request} names, or returns it when it exists (idempotent by name).
   *
   * @throws HostRefusal 409 RUNTIME_CONFLICT when another incarnation of the session is hosted
   */
  public Provisioned provision(
      SessionId session, RuntimeRequest request, Optional<CommandHeaders> headers) {
    request.validateFor(session);
    if (only.isPresent() && !only.get().equals(session)) {
      throw new HostRefusal(
          409,
          "RUNTIME_CONFLICT",
          "this agent hosts only session "
              + only.get().value()
              + "; session "
              + session.value()
              + " needs a runtime of its own");
    }
    return locked(
        session,
        () ->
            contracts.with(
                session, contract -> provisionLocked(session, request, headers, contract)));
  }

  private Provisioned provisionLocked(
      SessionId session,
      RuntimeRequest request,
      Optional<CommandHeaders> headers,
      LocalContract contract) {
    HostedRuntime existing = runtimes.get(session);
    if (existing != null) {
      HostedRuntime same = sameRuntime(existing, request.runtime());
      same.adoptAgent(request.agent());
      return new Provisioned(same.view(), false);
    }
    if (headers.isPresent()) {
      contract.accept(
          "provision " + request.runtime(),
          headers.get(),
          DesiredState.RUNNING,
          () -> create(session, request));
    } else {
      contract.checkData("provision " + request.runtime(), Optional.empty());
      create(session, request);
    }
    // A repeated provision whose reply was recorded does not run create() again: its
    // runtime is there unless it was removed since.
    HostedRuntime created =
        Objects.requireNonNull(
            runtimes.get(session),
            () -> "the runtime of session " + session.value() + " was removed since");
    return new Provisioned(created.view(), true);
  }

  /**
   * Removes the session's runtime (all of it: processes, home, output); removing one that is not
   * hosted succeeds, so removal is idempotent. The contract stays.
   *
   * @param runtimeName when present, only that runtime is removed (a newer one is left alone)
   */
  public void remove(SessionId session, Optional<String> runtimeName) {
    locked(
        session,
        () -> {
          HostedRuntime runtime = runtimes.get(session);
          if (runtime == null
              || runtimeName.map(n -> !n.equals(runtime.descriptor().runtime())).orElse(false)) {
            return null;
          }
          runtime.close();
          detach(runtime.directory());
          // Only a runtime whose directory is really gone counts as removed: otherwise the next
          // DELETE (the control plane retries) tries again instead of confirming a removal that
          // left the tenant's files on disk.
          deleteTree(runtime.directory());
          runtimes.remove(session);
          contracts.release(session);
          LOG.info("removed runtime {}", runtime.descriptor().runtime());
          return null;
        });
  }

  /** How many runtimes this host holds, in any state (the node's gauge). */
  public int hostedSessions() {
    return runtimes.size();
  }

  /** How many of the runtimes' shells are alive now. */
  public int runningShells() {
    return (int) runtimes.values().stream().filter(HostedRuntime::shellAlive).count();
  }

  /** How many executions run now, over every runtime. */
  public int runningExecutions() {
    return runtimes.values().stream().mapToInt(HostedRuntime::executionsRunning).sum();
  }

  public List<RuntimeView> list() {
    return runtimes.values().stream()
        .map(HostedRuntime::view)
        .sorted(Comparator.comparing(v -> v.descriptor().runtime()))
        .toList();
  }

  public RuntimeView status(SessionId session) {
    return runtime(session).view();
  }

  /**
   * Checks that {@code runtimeName} is the runtime hosted for the session, so that a command meant
   * for an older incarnation never reaches a newer one.
   */
  public void requireRuntime(SessionId session, String runtimeName) {
    String hosted = runtime(session).descriptor().runtime();
    if (!hosted.equals(runtimeName)) {
      throw new NotFoundException(
          "runtime " + runtimeName + " (this host runs " + hosted + " for the session)");
    }
  }

  public void input(SessionId session, Optional<CommandHeaders> headers, byte[] bytes) {
    contracts.checkData(session, "input", headers);
    runtime(session).write(bytes);
  }

  public void resize(SessionId session, Optional<CommandHeaders> headers, int columns, int rows) {
    contracts.checkData(session, "resize", headers);
    runtime(session).resize(columns, rows);
  }

  /** Writes the tombstone, then stops the workload; repeating it is a success. */
  public RuntimeView terminate(SessionId session, CommandHeaders headers) {
    return locked(
        session,
        () -> {
          HostedRuntime runtime = runtime(session);
          contracts.with(session, contract -> contract.terminate(headers, runtime::terminate));
          return runtime.view();
        });
  }

  public Instant renewLease(SessionId session, CommandHeaders headers, Duration ttl) {
    return locked(
        session,
        () -> {
          HostedRuntime runtime = runtime(session);
          String reply =
              contracts.with(
                  session,
                  contract ->
                      contract
                          .accept("lease", headers, () -> runtime.lease().renew(ttl).toString())
                          .reply());
          return Instant.parse(reply);
        });
  }

  /**
   * The first half of checkpoint generation {@code generation}: admitted under the local contract
   * (desired SUSPENDED), then the shell's state is captured and the tree paused. The caller streams
   * the archive with {@link #writeCheckpoint}.
   *
   * @return what the archive preserves
   */
  public List<String> prepareCheckpoint(
      SessionId session, CommandHeaders headers, long generation) {
    // An agent session's accepted prompts run first, without the session's locks: a drain takes
    // up to 5 minutes, which no status, lease or terminate of the session may wait behind.
    HostedRuntime draining = runtime(session);
    draining.drainForCheckpoint();
    try {
      return pauseForCheckpoint(session, headers, generation);
    } catch (RuntimeException e) {
      draining.reopenPrompts();
      throw e;
    }
  }

  private List<String> pauseForCheckpoint(
      SessionId session, CommandHeaders headers, long generation) {
    return locked(
        session,
        () -> {
          HostedRuntime runtime = runtime(session);
          contracts.with(
              session,
              contract ->
                  contract.accept(
                      "checkpoint " + generation,
                      headers,
                      DesiredState.SUSPENDED,
                      () -> {
                        runtime.prepareCheckpoint();
                        return "paused for generation " + generation;
                      }));
          return runtime.checkpointContents();
        });
  }

  /** Streams the archive of a runtime paused by {@link #prepareCheckpoint}. */
  public void writeCheckpoint(SessionId session, long generation, java.io.OutputStream out)
      throws IOException {
    HostedRuntime runtime = runtime(session);
    runtime.writeArchive(new ArchiveIdentity(session.value(), generation, clock.instant()), out);
  }

  /**
   * What the archive of checkpoint {@code generation} left out, once it was streamed whole.
   *
   * @throws NotFoundException when that archive was not the last one written whole
   */
  public dev.berth.agent.archive.ArchiveSummary writtenCheckpoint(
      SessionId session, long generation) {
    return runtime(session)
        .writtenArchive(generation)
        .orElseThrow(
            () ->
                new NotFoundException(
                    "checkpoint "
                        + generation
                        + " of session "
                        + session.value()
                        + " (none was written whole; prepare it again)"));
  }

  /** Gives checkpoint {@code generation} up: the tree continues and admission reopens. */
  public void abortCheckpoint(SessionId session, CommandHeaders headers, long generation) {
    locked(
        session,
        () -> {
          HostedRuntime runtime = runtime(session);
          contracts.with(
              session,
              contract ->
                  contract.accept(
                      "abort checkpoint " + generation,
                      headers,
                      () -> {
                        runtime.unpause();
                        return "continued after abandoning generation " + generation;
                      }));
          return null;
        });
  }

  /**
   * The second half of a resume: restores generation {@code generation} of the session's archive,
   * read from {@code archive}, into the runtime provisioned with {@code awaitRestore}, and starts
   * its shell on it. Admitted under the local contract (desired RUNNING) and idempotent by
   * operation: a repeat answers what the first answered and reads nothing (the caller drains the
   * body). A refused or failed restore leaves the runtime awaiting and its state as it was.
   *
   * @throws HostRefusal 409 CONFLICT when the runtime is not awaiting an archive, or the operation
   *     was recorded for another restore or command
   * @throws dev.berth.agent.archive.ArchiveException when the archive is unsafe or corrupt
   * @throws UncheckedIOException when the archive stream breaks off or the disk fails
   */
  public Restored restore(
      SessionId session, CommandHeaders headers, long generation, InputStream archive) {
    return restore(session, session, headers, generation, archive);
  }

  /**
   * As {@link #restore(SessionId, CommandHeaders, long, InputStream)}, for an archive taken of
   * session {@code archiveOwner}: a session recovered from a deleted one restores the deleted one's
   * last archive, and the control plane says so, so that the archive's identity is still checked.
   */
  public Restored restore(
      SessionId session,
      SessionId archiveOwner,
      CommandHeaders headers,
      long generation,
      InputStream archive) {
    return locked(
        session,
        () -> {
          HostedRuntime runtime = runtime(session);
          var expected = new ArchiveIdentity(archiveOwner.value(), generation, clock.instant());
          String reply =
              contracts.with(
                  session,
                  contract ->
                      contract
                          .accept(
                              "restore generation " + generation,
                              headers,
                              DesiredState.RUNNING,
                              () -> restoreInto(runtime, expected, archive).toReply())
                          .reply());
          return sameRestore(headers, reply, runtime.descriptor().runtime(), generation);
        });
  }

  private Restored restoreInto(
      HostedRuntime runtime, ArchiveIdentity expected, InputStream archive) {
    try {
      Restored restored = runtime.restore(expected, archive);
      LOG.info(
          "restored generation {} into runtime {} ({} entries)",
          expected.generation(),
          restored.runtime(),
          restored.files());
      return restored;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot restore generation " + expected.generation() + " into " + runtime.directory(), e);
    }
  }

  /**
   * The recorded reply of a repeated operation answers only the same restore: the contract keys
   * replies by operation alone, and the same operation naming another runtime (an older
   * incarnation) or generation must not pass for a restore that never happened.
   */
  private static Restored sameRestore(
      CommandHeaders headers, String reply, String runtime, long generation) {
    Optional<Restored> recorded;
    try {
      recorded = Optional.of(Restored.fromReply(reply));
    } catch (RuntimeException e) {
      recorded = Optional.empty();
    }
    if (recorded.isPresent()
        && recorded.get().runtime().equals(runtime)
        && recorded.get().generation() == generation) {
      return recorded.get();
    }
    throw new HostRefusal(
        409,
        "CONFLICT",
        "operation "
            + headers.operation().value()
            + " was already performed ("
            + recorded
                .map(r -> "it restored generation " + r.generation() + " into " + r.runtime())
                .orElse("by another command, which answered \"" + reply + "\"")
            + "), so it cannot restore generation "
            + generation
            + " into "
            + runtime
            + "; send this restore under an operation of its own");
  }

  public OutputLog output(SessionId session) {
    return runtime(session).output();
  }

  /**
   * What an attach does: a runtime whose shell exited gets a new one. Refusals (a runtime paused,
   * stopped or awaiting its archive) are left to the input that follows.
   */
  public void ensureShell(SessionId session) {
    try {
      runtime(session).ensureShell();
    } catch (HostRefusal | dev.berth.agent.contract.LeaseExpiredException notAdmitting) {
      // the attach still follows the output; input says why it is refused
    }
  }

  /** How the session's last shell that ended ended, if one did. */
  public java.util.Optional<ShellExit> lastShellExit(SessionId session) {
    return runtime(session).lastShellExit();
  }

  public ExecutionView startExecution(
      SessionId session, Optional<CommandHeaders> headers, ExecutionRequest request) {
    contracts.checkData(session, "execution", headers);
    return runtime(session).startExecution(request);
  }

  public List<ExecutionView> executions(SessionId session) {
    return runtime(session).executions();
  }

  public ExecutionView execution(SessionId session, ExecutionId id) {
    return runtime(session).execution(id);
  }

  public ExecutionView cancelExecution(SessionId session, ExecutionId id) {
    return runtime(session).cancel(id);
  }

  /** Queues a prompt of an agent session (see {@link HostedRuntime#prompt}). */
  public ExecutionView prompt(
      SessionId session, Optional<CommandHeaders> headers, String prompt, String permissionMode) {
    contracts.checkData(session, "prompt", headers);
    return runtime(session).prompt(prompt, permissionMode);
  }

  /** Refreshes an agent session's plugin copies (see {@link HostedRuntime#refreshPlugins}). */
  public List<String> refreshPlugins(SessionId session, Optional<CommandHeaders> headers) {
    contracts.checkData(session, "plugin refresh", headers);
    return runtime(session).refreshPlugins();
  }

  /** Up to {@code max} transcript entries of an agent session after {@code cursor}. */
  public List<tools.jackson.databind.JsonNode> transcript(SessionId session, long cursor, int max) {
    return runtime(session).transcript(cursor, max);
  }

  /** Waits up to {@code wait} for a transcript entry after {@code cursor}; whether one came. */
  public boolean awaitTranscript(SessionId session, long cursor, java.time.Duration wait)
      throws InterruptedException {
    return runtime(session).awaitTranscript(cursor, wait);
  }

  public OutputLog executionOutput(SessionId session, ExecutionId id) {
    return runtime(session).executionOutput(id);
  }

  /** Stops every workload (the runtimes stay on disk and are reloaded as stopped). */
  @Override
  public void close() {
    ticker.shutdownNow();
    runtimes.values().forEach(HostedRuntime::close);
    // The next host mounts the images again; nothing of this one stays mounted behind it.
    runtimes.values().forEach(r -> sandbox.disks().detachQuietly(r.directory()));
  }

  private void attach(Path directory) throws IOException {
    try {
      sandbox.disks().attach(directory, config.limits().maxDiskBytes(), config.diskReserveBytes());
    } catch (IOException | RuntimeException e) {
      meters.sandboxFailed(NodeMeters.SandboxFailure.DISK);
      throw e;
    }
  }

  /**
   * Mounts a found runtime's disk. A runtime an earlier version left with {@code state/} directly
   * in its directory gets it moved into {@code volume/}, without an image: it was made without a
   * cap, and a resume gives the session a new runtime with one.
   */
  private void attachFound(Path directory) throws IOException {
    Path legacy = directory.resolve("state");
    Path volume = StateDisks.volume(directory);
    // Also after a crash between making volume/ and the move: volume/ is then still empty.
    if (Files.isDirectory(legacy, LinkOption.NOFOLLOW_LINKS)
        && !Files.exists(directory.resolve("volume.img"), LinkOption.NOFOLLOW_LINKS)
        && !StateDisks.mounted(volume)) {
      Files.createDirectories(volume);
      Files.move(legacy, HostedRuntime.state(directory), StandardCopyOption.ATOMIC_MOVE);
      return;
    }
    attach(directory);
  }

  private void detach(Path directory) {
    try {
      sandbox.disks().detach(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unmount the disk of " + directory, e);
    }
  }

  private void tick() {
    for (HostedRuntime runtime : runtimes.values()) {
      try {
        runtime.lease().tick();
      } catch (RuntimeException e) {
        LOG.warn("lease tick of {} failed", runtime.descriptor().runtime(), e);
      }
    }
  }

  private String create(SessionId session, RuntimeRequest request) {
    Path directory = runtimeDirectory(session, request.runtime());
    try {
      PrivateFiles.createDirectories(directory);
      attach(directory);
      PrivateFiles.createDirectories(HostedRuntime.state(directory));
      Files.createDirectories(HostedRuntime.home(directory));
      RuntimeDescriptor descriptor = RuntimeDescriptor.of(session, request, clock.instant());
      descriptor.write(directory);
      runtimes.put(session, startHeld(session, descriptor, directory, request.agent()));
      LOG.info(
          "created runtime {}{}",
          request.runtime(),
          request.awaitRestore() ? " (awaiting its archive)" : "");
      return "created " + request.runtime();
    } catch (IOException e) {
      discard(directory);
      throw new UncheckedIOException("cannot create runtime directory " + directory, e);
    } catch (RuntimeException e) {
      discard(directory);
      throw e;
    }
  }

  /** A new runtime, holding its session's contract open for as long as it is hosted. */
  private HostedRuntime startHeld(
      SessionId session,
      RuntimeDescriptor descriptor,
      Path directory,
      @org.jspecify.annotations.Nullable AgentLaunch agent) {
    LocalContract held = contracts.hold(session);
    try {
      return HostedRuntime.start(
          descriptor, directory, config, sandbox, meters, held, clock, agent);
    } catch (RuntimeException e) {
      contracts.release(session);
      throw e;
    }
  }

  private void discard(Path directory) {
    sandbox.disks().detachQuietly(directory);
    try {
      if (StateDisks.mounted(StateDisks.volume(directory))) {
        // Deleting through a mount that would not go would fail half-way, on the image's files.
        LOG.warn("keeping {}: its disk is still mounted", directory);
        return;
      }
    } catch (IOException e) {
      LOG.warn("keeping {}: cannot tell whether its disk is mounted", directory, e);
      return;
    }
    deleteTree(directory);
  }

  private HostedRuntime sameRuntime(HostedRuntime existing, String requested) {
    String hosted = existing.descriptor().runtime();
    if (!hosted.equals(requested)) {
      throw new HostRefusal(
          409,
          "RUNTIME_CONFLICT",
          "this host already runs "
              + hosted
              + " for the session; remove it before creating "
              + requested);
    }
    return existing;
  }

  private HostedRuntime runtime(SessionId session) {
    HostedRuntime runtime = runtimes.get(session);
    if (runtime == null) {
      throw new NotFoundException("runtime of session " + session.value() + " on this host");
    }
    return runtime;
  }

  private Path runtimeDirectory(SessionId session, String runtime) {
    return config.sessionDirectory(session.value()).resolve("runtimes").resolve(runtime);
  }

  private void reload() {
    Path sessions = config.root().resolve("sessions");
    if (!Files.isDirectory(sessions)) {
      return;
    }
    try (Stream<Path> dirs = Files.list(sessions)) {
      for (Path sessionDir : dirs.toList()) {
        reloadSession(sessionDir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + sessions, e);
    }
    // Nothing of what the previous host ran for these runtimes may outlive it.
    sandbox.reclaim(
        runtimes.values().stream()
            .map(r -> HostedRuntime.planName(r.descriptor().runtime(), config.root()))
            .toList());
  }

  private void reloadSession(Path sessionDir) throws IOException {
    Path runtimesDir = sessionDir.resolve("runtimes");
    if (!Files.isDirectory(runtimesDir)) {
      return;
    }
    List<Path> found = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(runtimesDir)) {
      dirs.forEach(found::add);
    }
    for (Path dir : found) {
      if (!Files.exists(dir.resolve(RuntimeDescriptor.FILE))) {
        // A crash between creating the directory and describing it: nothing ever ran there.
        discard(dir);
        continue;
      }
      RuntimeDescriptor descriptor = RuntimeDescriptor.read(dir);
      SessionId session = descriptor.sessionId();
      try {
        attachFound(dir);
      } catch (IOException e) {
        // One runtime whose disk cannot be mounted must not keep the host from serving the others:
        // the control plane finds it missing and treats it as a lost runtime. Its files stay.
        LOG.error("cannot mount the disk of runtime {}; not hosting it", descriptor.runtime(), e);
        continue;
      }
      LocalContract held = contracts.hold(session);
      try {
        runtimes.put(
            session, HostedRuntime.reload(descriptor, dir, config, sandbox, meters, held, clock));
      } catch (IOException | RuntimeException e) {
        contracts.release(session);
        throw e;
      }
      LOG.info(
          "reloaded runtime {} ({})",
          descriptor.runtime(),
          descriptor.awaitRestore() ? "still awaiting its archive" : "stopped: the host restarted");
    }
  }

  private <T> T locked(SessionId session, java.util.function.Supplier<T> action) {
    return locks.locked(session, action);
  }

  /** How many sessions have a lock now (for the test that they are released). */
  int lockedSessions() {
    return locks.size();
  }

  /** How many sessions' contracts are open now (for the test that they are released). */
  int openContracts() {
    return contracts.size();
  }

  /** Workloads leave read-only directories behind (Go's module cache is 0555): Trees opens them. */
  private static void deleteTree(Path root) {
    try {
      Trees.delete(root);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root, e);
    }
  }
}
