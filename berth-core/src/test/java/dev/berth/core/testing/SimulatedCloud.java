package dev.berth.core.testing;

import dev.berth.core.agent.AgentClient;
import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.AgentReply;
import dev.berth.core.agent.AgentStatus;
import dev.berth.core.agent.CommandContext;
import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.DeadlineExceededException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeListing;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A simulated data plane for model tests: runtimes, their agents and an archive store in memory. It
 * is a fake because the real runtime comes with the data-plane issue; it models what the protocols
 * depend on and nothing more:
 *
 * <ul>
 *   <li>Runtimes are created idempotently by name and can vanish, be partitioned from the control
 *       plane, or be slow to remove (their removal unconfirmed, or in progress).
 *   <li>Each session's agent keeps the local contract, like the node agent's state directory: it
 *       remembers the newest intent it accepted and a termination tombstone across incarnations,
 *       rejects older versions and passed deadlines without side effects, and treats a repeated
 *       operation id as done.
 *   <li>Ground truth for invariants: which runtimes really exist, and how many were ever created.
 *   <li>The archive store is an {@link InMemoryArchiveStore}, which passes the archive contract;
 *       the agent answers a repeated checkpoint of a committed generation with that archive.
 * </ul>
 *
 * <p>Not thread-safe beyond {@code synchronized} methods; model tests drive it from one thread.
 */
public final class SimulatedCloud implements Runtime, AgentClient, ArchiveStore {

  private enum State {
    STARTING,
    RUNNING,
    GONE
  }

  private static final class Sim {
    final RuntimeRef ref;
    final OwnershipLabels labels;
    final List<dev.berth.core.session.PluginName> plugins;
    final WorkloadType workload;
    State state;
    boolean workloadRunning = true;
    Optional<String> stopReason = Optional.empty();
    Optional<RuntimeObservation.Failed> failed = Optional.empty();

    Sim(
        RuntimeRef ref,
        OwnershipLabels labels,
        List<dev.berth.core.session.PluginName> plugins,
        WorkloadType workload,
        State state) {
      this.ref = ref;
      this.labels = labels;
      this.plugins = plugins;
      this.workload = workload;
      this.state = state;
    }
  }

  /** The local contract an agent keeps for one session. */
  private static final class Contract {
    long accepted;
    DesiredState desired = DesiredState.RUNNING;
    boolean tombstoned;
    final Map<String, AgentReply> done = new HashMap<>();
  }

  private final InstantSource clock;
  private final Map<String, Sim> runtimes = new LinkedHashMap<>();
  private final Map<SessionId, Contract> contracts = new HashMap<>();
  private final Map<SessionId, Integer> created = new HashMap<>();
  private final Set<SessionId> partitioned = new HashSet<>();
  private final InMemoryArchiveStore archives;
  private boolean startInstantly = true;
  private Optional<FailureReason> startsStalledBy = Optional.empty();
  private boolean dieOnStart;
  private boolean removalStuck;
  private boolean removalSlow;
  private dev.berth.core.agent.Refusal restoreRefusal;
  private dev.berth.core.agent.Refusal checkpointRefusal;

  public SimulatedCloud(InstantSource clock) {
    this.clock = clock;
    this.archives = new InMemoryArchiveStore(clock);
  }

  // ---- knobs and ground truth -----------------------------------------------------------------

  /** Whether new runtimes are RUNNING at once, or STARTING until {@link #finishStarting}. */
  public synchronized void startInstantly(boolean instantly) {
    startInstantly = instantly;
  }

  /**
   * Whether new runtimes are gone as soon as they are created (a crashing entrypoint, an image that
   * cannot run), so that the first observation finds them gone.
   */
  public synchronized void dieOnStart(boolean die) {
    dieOnStart = die;
  }

  /**
   * New runtimes that are still starting say why they are not running yet (no node has room, the
   * image pull backs off), a failure that may still resolve on its own.
   */
  public synchronized void startsStalledBy(FailureReason reason) {
    startsStalledBy = Optional.of(reason);
  }

  /**
   * The runtime still exists but will not run (its agent was killed for memory, its image name is
   * invalid): it is observed Failed with {@code reason} until it is removed.
   */
  public synchronized void fail(String name, FailureReason reason, String detail) {
    Sim sim = runtimes.get(name);
    if (sim != null) {
      sim.failed = Optional.of(new RuntimeObservation.Failed(reason, detail));
    }
  }

  public synchronized void finishStarting() {
    runtimes.values().stream()
        .filter(s -> s.state == State.STARTING)
        .forEach(s -> s.state = State.RUNNING);
  }

  /** The runtime disappears (process killed, pod evicted) without anyone asking. */
  public synchronized void vanish(String name) {
    Sim sim = runtimes.get(name);
    if (sim != null) {
      sim.state = State.GONE;
    }
  }

  /**
   * The agent refuses every checkpoint from now on with {@code reason}, before it accepts the
   * suspend (as the agent refuses an archive its restore would refuse: ARCHIVE_REFUSED).
   */
  public synchronized void refuseCheckpoints(dev.berth.core.agent.Refusal reason) {
    checkpointRefusal = reason;
  }

  /** The agent refuses every restore from now on with {@code reason} (e.g. ARCHIVE_CORRUPT). */
  public synchronized void refuseRestores(dev.berth.core.agent.Refusal reason) {
    restoreRefusal = reason;
  }

  /**
   * The workload ends inside a runtime that still exists and the runtime says it no longer runs it
   * (its host stopped it: a lease expiry, the maximum lifetime). A shell that exits is not this:
   * the runtime stays running and starts a new shell.
   */
  public synchronized void workloadExits(String name) {
    Sim sim = runtimes.get(name);
    if (sim != null) {
      sim.workloadRunning = false;
    }
  }

  /** As {@link #workloadExits}, the agent naming why its host stopped the workload. */
  public synchronized void workloadStopped(String name, String reason) {
    Sim sim = runtimes.get(name);
    if (sim != null) {
      sim.workloadRunning = false;
      sim.stopReason = Optional.of(reason);
    }
  }

  /** The session's agent stops answering; its runtime keeps running. */
  public synchronized void partition(SessionId session) {
    partitioned.add(session);
  }

  public synchronized void heal(SessionId session) {
    partitioned.remove(session);
  }

  public synchronized void healAll() {
    partitioned.clear();
  }

  /** Removals are accepted but never confirmed while stuck. */
  public synchronized void removalStuck(boolean stuck) {
    removalStuck = stuck;
  }

  /** Removals are accepted and reported in progress, but do not finish, while slow. */
  public synchronized void removalSlow(boolean slow) {
    removalSlow = slow;
  }

  /** The runtimes of {@code session} that really exist now. */
  public synchronized List<RuntimeRef> live(SessionId session) {
    return runtimes.values().stream()
        .filter(s -> s.labels.session().equals(session) && s.state != State.GONE)
        .map(s -> s.ref)
        .toList();
  }

  /** How many runtimes were ever created for {@code session}. */
  public synchronized int created(SessionId session) {
    return created.getOrDefault(session, 0);
  }

  public boolean archiveExists(String uri) {
    return archives.exists(uri);
  }

  // ---- Runtime --------------------------------------------------------------------------------

  @Override
  public String kind() {
    return "sim";
  }

  @Override
  public synchronized void provision(RuntimeSpec spec) {
    Sim existing = runtimes.get(spec.runtime().name());
    if (existing != null && existing.state != State.GONE) {
      return;
    }
    runtimes.put(
        spec.runtime().name(),
        new Sim(
            spec.runtime(),
            spec.labels(),
            spec.plugins(),
            spec.workload(),
            dieOnStart ? State.GONE : startInstantly ? State.RUNNING : State.STARTING));
    created.merge(spec.labels().session(), 1, Integer::sum);
  }

  /** The plugins {@code runtime} was provisioned with; none for one this cloud never made. */
  public synchronized List<dev.berth.core.session.PluginName> plugins(RuntimeRef runtime) {
    Sim sim = runtimes.get(runtime.name());
    return sim == null ? List.of() : sim.plugins;
  }

  /** Whether {@code runtime} was provisioned for a shell (or never made by this cloud). */
  public synchronized boolean runsAShell(RuntimeRef runtime) {
    Sim sim = runtimes.get(runtime.name());
    return sim == null || sim.workload.equals(WorkloadType.SHELL);
  }

  @Override
  public synchronized RuntimeObservation observe(RuntimeRef runtime) {
    Sim sim = runtimes.get(runtime.name());
    if (sim == null) {
      return new RuntimeObservation.Gone("runtime " + runtime.name() + " does not exist");
    }
    if (sim.failed.isPresent() && sim.state != State.GONE) {
      return sim.failed.get();
    }
    return switch (sim.state) {
      case STARTING -> new RuntimeObservation.Starting("starting", startsStalledBy);
      case RUNNING -> new RuntimeObservation.Running(Optional.of("sim://" + runtime.name()));
      case GONE -> new RuntimeObservation.Gone("runtime " + runtime.name() + " is gone");
    };
  }

  @Override
  public synchronized RemovalResult remove(RuntimeRef runtime) {
    Sim sim = runtimes.get(runtime.name());
    if (sim == null || sim.state == State.GONE) {
      return new RemovalResult.Confirmed();
    }
    if (removalStuck) {
      return new RemovalResult.Unconfirmed("the runtime did not confirm its removal");
    }
    if (removalSlow) {
      return new RemovalResult.InProgress("the runtime is being removed");
    }
    sim.state = State.GONE;
    return new RemovalResult.Confirmed();
  }

  @Override
  public void checkReachable() {
    // The simulated cloud is always there; contact loss is modelled per runtime, not here.
  }

  @Override
  public synchronized List<RuntimeListing> list() {
    List<RuntimeListing> all = new ArrayList<>();
    for (Sim sim : runtimes.values()) {
      if (sim.state != State.GONE) {
        all.add(new RuntimeListing(sim.ref.name(), sim.labels, observe(sim.ref)));
      }
    }
    return all;
  }

  // ---- AgentClient ----------------------------------------------------------------------------

  @Override
  public synchronized AgentStatus status(RuntimeRef runtime) {
    Sim sim = reachable(runtime);
    Contract c = contract(sim.labels.session());
    return new AgentStatus(
        sim.workloadRunning,
        false,
        c.accepted,
        c.desired,
        c.tombstoned,
        Optional.empty(),
        sim.stopReason);
  }

  @Override
  public synchronized AgentReply send(RuntimeRef runtime, AgentCommand command) {
    CommandContext ctx = command.context();
    Contract c = contract(ctx.session());
    String subject = "agent of session " + ctx.session();
    if (c.tombstoned && !(command instanceof AgentCommand.Terminate)) {
      throw new StaleIntentException(subject + " (terminated)", ctx.intentVersion(), c.accepted);
    }
    reachable(runtime);
    if (clock.instant().isAfter(ctx.deadline())) {
      throw new DeadlineExceededException(
          subject, ctx.deadline().toString(), clock.instant().toString());
    }
    if (ctx.intentVersion() < c.accepted) {
      throw new StaleIntentException(subject, ctx.intentVersion(), c.accepted);
    }
    String key =
        ctx.operation().value()
            + "/"
            + runtime.name()
            + "/"
            + switch (command) {
              case AgentCommand.PrepareCheckpoint p -> "prepare/" + p.generation();
              case AgentCommand.AbortCheckpoint a -> "abort/" + a.generation();
              case AgentCommand.Restore r -> "restore/" + r.archive().generation();
              case AgentCommand.Terminate t -> "terminate";
              case AgentCommand.RenewLease l -> "lease/" + ctx.deadline();
            };
    AgentReply earlier = c.done.get(key);
    if (earlier != null) {
      return earlier;
    }
    c.accepted = ctx.intentVersion();
    AgentReply reply = apply(c, command);
    c.done.put(key, reply);
    return reply;
  }

  private AgentReply apply(Contract c, AgentCommand command) {
    return switch (command) {
      case AgentCommand.PrepareCheckpoint p -> {
        if (checkpointRefusal != null) {
          throw new dev.berth.core.agent.AgentRefusedException(
              checkpointRefusal, "the simulated agent refuses checkpoint " + p.generation());
        }
        c.desired = DesiredState.SUSPENDED;
        yield new AgentReply.CheckpointTaken(writeArchive(p.context().session(), p.generation()));
      }
      case AgentCommand.AbortCheckpoint a -> {
        c.desired = DesiredState.RUNNING;
        yield new AgentReply.Accepted();
      }
      case AgentCommand.Restore r -> {
        if (restoreRefusal != null) {
          throw new dev.berth.core.agent.AgentRefusedException(
              restoreRefusal, "the simulated agent refuses archive " + r.archive().uri());
        }
        if (!archives.exists(r.archive().uri())) {
          // As the server's archive transfer reports a store that lacks the archive.
          throw new dev.berth.core.agent.AgentRefusedException(
              dev.berth.core.agent.Refusal.ARCHIVE_MISSING,
              "archive " + r.archive().uri() + " is not in the archive store");
        }
        c.desired = DesiredState.RUNNING;
        yield new AgentReply.Accepted();
      }
      case AgentCommand.Terminate t -> {
        c.desired = DesiredState.TERMINATED;
        c.tombstoned = true;
        yield new AgentReply.Accepted();
      }
      case AgentCommand.RenewLease l -> new AgentReply.Accepted();
    };
  }

  private ArchiveRef writeArchive(SessionId session, long generation) {
    Optional<ArchiveRef> earlier =
        archives.list(session).stream().filter(a -> a.generation() == generation).findFirst();
    if (earlier.isPresent()) {
      // Committed archives are immutable: a checkpoint of this generation asked again (under
      // another operation) is answered with the one committed before.
      return earlier.get();
    }
    try (ArchiveUpload upload = archives.begin(session, generation)) {
      upload.stream()
          .write(("state of " + session + " at " + generation).getBytes(StandardCharsets.UTF_8));
      return upload.commit(List.of("home", "output", "shell-state"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private Sim reachable(RuntimeRef runtime) {
    Sim sim = runtimes.get(runtime.name());
    if (sim == null || sim.state != State.RUNNING) {
      throw new AgentUnreachableException("agent of " + runtime.name(), "runtime not running");
    }
    if (partitioned.contains(sim.labels.session())) {
      throw new AgentUnreachableException("agent of " + runtime.name(), "network partition");
    }
    return sim;
  }

  private Contract contract(SessionId session) {
    return contracts.computeIfAbsent(session, k -> new Contract());
  }

  // ---- ArchiveStore ---------------------------------------------------------------------------

  @Override
  public ArchiveUpload begin(SessionId session, long generation) {
    return archives.begin(session, generation);
  }

  @Override
  public InputStream open(ArchiveRef archive) {
    return archives.open(archive);
  }

  @Override
  public List<ArchiveRef> list(SessionId session) {
    return archives.list(session);
  }

  @Override
  public void delete(ArchiveRef archive) {
    archives.delete(archive);
  }

  @Override
  public void checkWritable() {
    archives.checkWritable();
  }
}
