package dev.berth.agent.host;

import dev.berth.agent.archive.ArchiveSummary;
import dev.berth.agent.contract.LeaseExpiredException;
import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.isolation.HelperLedger;
import dev.berth.agent.isolation.Isolation;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.StateDisks;
import dev.berth.agent.output.OutputLog;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionRequest;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.contract.CommandHeaders;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

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
 *
 * <p>This class is the host's entry point and holds no logic of its own: {@link RuntimeHosting}
 * provisions and removes runtimes, {@link SessionCommands} admits commands under the sessions'
 * contracts, {@link CheckpointCommands} checkpoints and restores, {@link RuntimeRegistry} holds the
 * runtimes and {@link HostReload} finds them again after a restart.
 */
public final class SessionHost implements AutoCloseable {

  private final HostParts parts;
  private final RuntimeRegistry runtimes = new RuntimeRegistry();
  private final SessionLocks locks = new SessionLocks();
  private final SessionContracts contracts;
  private final RuntimeDisks disks;
  private final SessionCommands commands;
  private final RuntimeHosting hosting;
  private final CheckpointCommands checkpoints;
  private final ScheduledExecutorService ticker;
  private final List<HelperLedger.Leftover> leftovers;
  private final dev.berth.agent.contract.StoreEpochMark storeEpoch;

  private SessionHost(
      HostParts parts, Optional<SessionId> only, List<HelperLedger.Leftover> leftovers) {
    this.parts = parts;
    this.leftovers = List.copyOf(leftovers);
    this.storeEpoch = dev.berth.agent.contract.StoreEpochMark.open(parts.config().root());
    this.contracts = new SessionContracts(parts.config(), parts.clock());
    this.disks = new RuntimeDisks(parts.config(), parts.sandbox(), parts.meters());
    this.commands = new SessionCommands(runtimes, locks, contracts);
    this.hosting = new RuntimeHosting(parts, runtimes, locks, contracts, disks, only);
    this.checkpoints = new CheckpointCommands(runtimes, commands, parts.clock());
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

  /**
   * Opens a host that serves exactly one agent session in a pod, whose credential proxy runs in the
   * pod's {@code proxy} container and answers at {@code sidecarProxy}. The pod is the session's
   * sandbox (its own user, filesystem, network and limits): the CLI runs unconfined in the agent
   * container, and the host starts no proxy and never holds the provider's token.
   */
  public static SessionHost openForPod(
      SessionId session, HostConfig config, Clock clock, java.net.URI sidecarProxy) {
    return open(
        new HostParts(config, Sandbox.none(), NodeMeters.NONE, clock, Optional.of(sidecarProxy)),
        Optional.of(session),
        List.of());
  }

  private static SessionHost open(
      HostConfig config, Clock clock, NodeMeters meters, Optional<SessionId> only) {
    // Before any helper of this host starts: what the records name is a predecessor's.
    HelperLedger helpers = HelperLedger.at(config.root().resolve(HelperLedger.DIRECTORY));
    List<HelperLedger.Leftover> leftovers = helpers.reapLeftovers();
    Sandbox sandbox =
        Sandbox.detect(
            Path.of("/sys/fs/cgroup"), config.sandbox(), config.root().resolve("uids"), helpers);
    return open(new HostParts(config, sandbox, meters, clock), only, leftovers);
  }

  private static SessionHost open(
      HostParts parts, Optional<SessionId> only, List<HelperLedger.Leftover> leftovers) {
    SessionHost host = new SessionHost(parts, only, leftovers);
    new HostReload(host.parts, host.runtimes, host.contracts, host.disks).run();
    var unused =
        host.ticker.scheduleWithFixedDelay(host.runtimes::tickLeases, 1, 1, TimeUnit.SECONDS);
    return host;
  }

  /**
   * The helper processes a previous host on this root left running (it was killed, so it could not
   * end them) and what this host did about each when it opened: kill them, found by its records.
   */
  public List<HelperLedger.Leftover> leftovers() {
    return leftovers;
  }

  /** The highest store epoch a control plane's request carried (docs/agent-protocol.md). */
  public dev.berth.agent.contract.StoreEpochMark storeEpoch() {
    return storeEpoch;
  }

  /** What a runtime provisioned now would run under: the host's sandbox with its limits. */
  public Isolation isolation() {
    return parts.sandbox().isolation(parts.config().limits());
  }

  public Instant now() {
    return parts.clock().instant();
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
    return hosting.provision(session, request, headers);
  }

  /**
   * Removes the session's runtime (all of it: processes, home, output); removing one that is not
   * hosted succeeds, so removal is idempotent. The contract stays.
   *
   * @param runtimeName when present, only that runtime is removed (a newer one is left alone)
   */
  public void remove(SessionId session, Optional<String> runtimeName) {
    hosting.remove(session, runtimeName);
  }

  /** How many runtimes this host holds, in any state (the node's gauge). */
  public int hostedSessions() {
    return runtimes.size();
  }

  /** How many of the runtimes' shells are alive now. */
  public int runningShells() {
    return runtimes.runningShells();
  }

  /** How many executions run now, over every runtime. */
  public int runningExecutions() {
    return runtimes.runningExecutions();
  }

  public List<RuntimeView> list() {
    return runtimes.views();
  }

  public RuntimeView status(SessionId session) {
    return runtimes.get(session).view();
  }

  /**
   * Checks that {@code runtimeName} is the runtime hosted for the session, so that a command meant
   * for an older incarnation never reaches a newer one.
   */
  public void requireRuntime(SessionId session, String runtimeName) {
    String hosted = runtimes.get(session).descriptor().runtime();
    if (!hosted.equals(runtimeName)) {
      throw new NotFoundException(
          "runtime " + runtimeName + " (this host runs " + hosted + " for the session)");
    }
  }

  public void input(SessionId session, Optional<CommandHeaders> headers, byte[] bytes) {
    commands.data(session, "input", headers).shell().write(bytes);
  }

  public void resize(SessionId session, Optional<CommandHeaders> headers, int columns, int rows) {
    commands.data(session, "resize", headers).shell().resize(columns, rows);
  }

  /** Writes the tombstone, then stops the workload; repeating it is a success. */
  public RuntimeView terminate(SessionId session, CommandHeaders headers) {
    return commands.lifecycle(
        session,
        (runtime, contract) -> {
          contract.terminate(headers, runtime::terminate);
          return runtime.view();
        });
  }

  /**
   * Renews the runtime's control lease. Checked as every lifecycle command is (deadline, tombstone,
   * intent version); recorded only when it brings a newer intent version than the contract
   * accepted, which must survive a restart. The control plane renews every few seconds for as long
   * as the runtime lives, and recording every renewal would write the contract file that often and
   * push the replies of real operations out of the ones it remembers; a repeated renewal renews
   * again, which is what a renewal means.
   */
  public Instant renewLease(SessionId session, CommandHeaders headers, Duration ttl) {
    return commands.lifecycle(
        session,
        (runtime, contract) -> {
          contract.checkData("lease", Optional.of(headers));
          if (headers.intentVersion() > contract.record().acceptedIntentVersion()) {
            return Instant.parse(
                contract
                    .accept("lease", headers, () -> runtime.lease().renew(ttl).toString())
                    .reply());
          }
          return runtime.lease().renew(ttl);
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
    return checkpoints.prepare(session, headers, generation);
  }

  /** Streams the archive of a runtime paused by {@link #prepareCheckpoint}. */
  public void writeCheckpoint(SessionId session, long generation, OutputStream out)
      throws IOException {
    checkpoints.write(session, generation, out);
  }

  /**
   * What the archive of checkpoint {@code generation} left out, once it was streamed whole.
   *
   * @throws NotFoundException when that archive was not the last one written whole
   */
  public ArchiveSummary writtenCheckpoint(SessionId session, long generation) {
    return checkpoints.written(session, generation);
  }

  /** Gives checkpoint {@code generation} up: the tree continues and admission reopens. */
  public void abortCheckpoint(SessionId session, CommandHeaders headers, long generation) {
    checkpoints.abort(session, headers, generation);
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
    return checkpoints.restore(session, archiveOwner, headers, generation, archive);
  }

  public OutputLog output(SessionId session) {
    return runtimes.get(session).output();
  }

  /**
   * What an attach does: a runtime whose shell exited gets a new one. Refusals (a runtime paused,
   * stopped or awaiting its archive) are left to the input that follows.
   */
  public void ensureShell(SessionId session) {
    try {
      runtimes.get(session).shell().ensure();
    } catch (HostRefusal | LeaseExpiredException notAdmitting) {
      // the attach still follows the output; input says why it is refused
    }
  }

  /** How the session's last shell that ended ended, if one did. */
  public Optional<ShellExit> lastShellExit(SessionId session) {
    return runtimes.get(session).shell().lastExit();
  }

  public ExecutionView startExecution(
      SessionId session, Optional<CommandHeaders> headers, ExecutionRequest request) {
    return commands.data(session, "execution", headers).executions().start(request);
  }

  public List<ExecutionView> executions(SessionId session) {
    return runtimes.get(session).executions().list();
  }

  public ExecutionView execution(SessionId session, ExecutionId id) {
    return runtimes.get(session).executions().get(id);
  }

  public ExecutionView cancelExecution(SessionId session, ExecutionId id) {
    return runtimes.get(session).executions().cancel(id);
  }

  public OutputLog executionOutput(SessionId session, ExecutionId id) {
    return runtimes.get(session).executions().output(id);
  }

  /** Queues a prompt of an agent session (see {@link AgentPrompts#prompt}). */
  public ExecutionView prompt(
      SessionId session, Optional<CommandHeaders> headers, String prompt, String permissionMode) {
    return commands.data(session, "prompt", headers).agent().prompt(prompt, permissionMode);
  }

  /** Refreshes an agent session's plugin copies (see {@link AgentPrompts#refreshPlugins}). */
  public List<String> refreshPlugins(SessionId session, Optional<CommandHeaders> headers) {
    return commands.data(session, "plugin refresh", headers).agent().refreshPlugins();
  }

  /** Up to {@code max} transcript entries of an agent session after {@code cursor}. */
  public List<JsonNode> transcript(SessionId session, long cursor, int max) {
    return runtimes.get(session).agent().transcript(cursor, max);
  }

  /** Waits up to {@code wait} for a transcript entry after {@code cursor}; whether one came. */
  public boolean awaitTranscript(SessionId session, long cursor, Duration wait)
      throws InterruptedException {
    return runtimes.get(session).agent().awaitTranscript(cursor, wait);
  }

  /** Stops every workload (the runtimes stay on disk and are reloaded as stopped). */
  @Override
  public void close() {
    ticker.shutdownNow();
    runtimes.all().forEach(HostedRuntime::close);
    // The next host mounts the images again; nothing of this one stays mounted behind it.
    runtimes.all().forEach(r -> disks.detachQuietly(r.directory()));
  }

  /** How many sessions have a lock now (for the test that they are released). */
  int lockedSessions() {
    return locks.size();
  }

  /** How many sessions' contracts are open now (for the test that they are released). */
  int openContracts() {
    return contracts.size();
  }
}
