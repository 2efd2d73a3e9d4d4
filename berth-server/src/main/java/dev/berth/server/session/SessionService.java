package dev.berth.server.session;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.idle.IdleDecision;
import dev.berth.core.idle.IdlePolicy;
import dev.berth.core.idle.IdleSettings;
import dev.berth.core.idle.WorkloadActivity;
import dev.berth.core.lifecycle.SessionIntents;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.ObligationAction;
import dev.berth.core.session.ObligationState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.PublicState;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.store.Page;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import dev.berth.server.auth.Admission;
import dev.berth.server.reconcile.ReconcileLoop;
import dev.berth.server.runtime.AgentCommandFailedException;
import dev.berth.server.runtime.AgentData;
import dev.berth.server.runtime.AgentEndpoints;
import dev.berth.server.runtime.RestoreProgress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The public API's use cases over sessions. Lifecycle changes only write intent and wake the
 * reconciler, then wait (bounded) for the session to get there; data-plane calls follow "make
 * active, then serve": an idle session is touched, a snapshot is restored, and the answer says
 * which {@code path} was taken.
 */
public final class SessionService {

  /** The largest input the agent takes in one call. */
  static final int MAX_INPUT_SLICE = 1 << 20;

  /** The workload types this installation runs. */
  public static final Set<String> WORKLOAD_TYPES = Set.of(WorkloadType.SHELL.value());

  private final SessionStore store;
  private final SessionIntents intents;
  private final ReconcileLoop loop;
  private final SessionSignals signals;
  private final AgentEndpoints endpoints;
  private final AgentData data;
  private final Admission admission;
  private final Clock clock;
  private final Settings settings;
  private final RandomGenerator random;
  private final IdlePolicy idlePolicy;
  private final WorkloadProbe probe;
  private final RestoreProgress restores;

  /**
   * How long requests wait for the reconciler, the idle policy's timings, and whether sessions are
   * suspended at all (off: a snapshot request answers 503 SNAPSHOT_UNAVAILABLE and the idle policy
   * only explains).
   */
  public record Settings(
      Duration createWait,
      Duration deleteWait,
      Duration suspendWait,
      IdleSettings idle,
      boolean suspendEnabled) {
    public static Settings defaults() {
      return new Settings(
          Duration.ofMinutes(2),
          Duration.ofMinutes(1),
          Duration.ofMinutes(2),
          IdleSettings.defaults(),
          true);
    }

    public Settings withIdle(IdleSettings timings) {
      return new Settings(createWait, deleteWait, suspendWait, timings, suspendEnabled);
    }

    public Settings withSuspendEnabled(boolean enabled) {
      return new Settings(createWait, deleteWait, suspendWait, idle, enabled);
    }

    public Duration idleAfter() {
      return idle.idleAfter();
    }
  }

  /** Refuses a new session when the server requires isolation its node cannot give. */
  private final Runnable isolationRequirement;

  public SessionService(
      SessionStore store,
      SessionIntents intents,
      ReconcileLoop loop,
      SessionSignals signals,
      AgentEndpoints endpoints,
      AgentData data,
      Admission admission,
      Clock clock,
      Settings settings,
      RandomGenerator random,
      RestoreProgress restores,
      Runnable isolationRequirement) {
    this.store = store;
    this.intents = intents;
    this.loop = loop;
    this.signals = signals;
    this.endpoints = endpoints;
    this.data = data;
    this.admission = admission;
    this.clock = clock;
    this.settings = settings;
    this.random = random;
    this.idlePolicy = new IdlePolicy(settings.idle());
    this.probe = new WorkloadProbe(endpoints, data);
    this.restores = restores;
    this.isolationRequirement = isolationRequirement;
  }

  /** How far the restore of the session in flight has streamed its archive, if one runs. */
  public Optional<RestoreProgress.Progress> restoreProgress(SessionId id) {
    return restores.of(id);
  }

  public Duration idleAfter() {
    return settings.idleAfter();
  }

  public Clock clock() {
    return clock;
  }

  // ---- lifecycle ----------------------------------------------------------------------------

  /** A created session, and whether it became active within the wait. */
  public record Created(Session session, boolean active) {}

  public Created create(
      Scope scope,
      String name,
      Optional<String> workloadType,
      Optional<String> model,
      Optional<TenantId> onBehalfOf,
      String actor,
      boolean wait) {
    String trimmed = name.strip();
    if (trimmed.isEmpty()) {
      throw new InvalidValueException("invalid input: name must not be blank");
    }
    WorkloadType type = workloadType(workloadType);
    if (model.isPresent()) {
      throw new InvalidValueException(
          "invalid input: model applies to claude-code sessions only; omit it for " + type.value());
    }
    TenantId owner = admission.tenantFor(scope.principal(), onBehalfOf);
    Session stored =
        admission.admit(
            scope.principal(),
            type,
            owner,
            store,
            () -> {
              // After the grants and the quota: a refused tenant hears 403 or 429 first.
              isolationRequirement.run();
              return intents.create(SessionId.generate(random), owner, trimmed, type, actor);
            });
    loop.enqueue(stored.id());
    if (!wait) {
      return new Created(stored, false);
    }
    Session settled =
        signals
            .await(stored.id(), SessionService::settledStart, settings.createWait())
            .orElseGet(() -> get(scope, stored.id()));
    failIfFailed(settled);
    return new Created(settled, settled.phase() == Phase.READY);
  }

  /**
   * The session, as the public API sees it: a deleted one (its deletion accepted) answers 404 as
   * one that never existed, as the original platform, which deletes the record, does.
   */
  public Session get(Scope scope, SessionId id) {
    return store
        .get(id)
        .filter(scope::sees)
        .filter(s -> !s.deleted())
        .orElseThrow(SessionService::notFound);
  }

  /** The session deleted or not: what recovery and a deletion's own answer need. */
  private Session getIncludingDeleted(Scope scope, SessionId id) {
    return store.get(id).filter(scope::sees).orElseThrow(SessionService::notFound);
  }

  /**
   * What {@code GET /sessions} lists: every session the caller sees, oldest first, either in pages
   * ({@code limit}) or all at once (no {@code limit}, the original's contract), narrowed to a
   * tenant (admin), to the public states in {@code states} (empty: any), and to deleted sessions
   * only or to live ones only.
   */
  public record Listing(
      Optional<TenantId> tenant,
      Set<PublicState> states,
      boolean deleted,
      java.util.OptionalInt limit,
      Optional<String> pageToken) {}

  public Page<Session> list(Scope scope, Listing listing) {
    SessionQuery query =
        SessionQuery.all(listing.limit().orElse(SessionQuery.MAX_LIMIT))
            .withDeleted(
                listing.deleted() ? SessionQuery.Deleted.ONLY : SessionQuery.Deleted.EXCLUDED);
    Optional<TenantId> only = admission.listScope(scope.principal(), listing.tenant());
    if (only.isPresent()) {
      query = query.forTenant(only.get());
    }
    if (listing.pageToken().isPresent()) {
      query = query.after(listing.pageToken().get());
    }
    Instant now = clock.instant();
    java.util.function.Predicate<Session> wanted =
        s ->
            listing.states().isEmpty()
                || listing.states().contains(PublicState.of(s, now, settings.idleAfter()));
    if (listing.limit().isPresent()) {
      Page<Session> page = store.list(query);
      return new Page<>(page.items().stream().filter(wanted).toList(), page.nextPageToken());
    }
    List<Session> all = new java.util.ArrayList<>();
    Page<Session> page = store.list(query);
    while (true) {
      page.items().stream().filter(wanted).forEach(all::add);
      if (page.nextPageToken().isEmpty()) {
        return new Page<>(all, Optional.empty());
      }
      page = store.list(query.after(page.nextPageToken().get()));
    }
  }

  /**
   * Until when a deleted session can still be recovered: its last archive is kept for the recovery
   * window and not yet handed to a recovered session. Empty when it cannot be.
   */
  public Optional<Instant> recoverableUntil(Session s) {
    if (s.phase() != Phase.TERMINATED || s.archive().isEmpty()) {
      return Optional.empty();
    }
    String uri = s.archive().get().uri();
    return s.obligations().stream()
        .filter(o -> o.action() == ObligationAction.RETAIN_ARCHIVE)
        .filter(o -> o.resource().equals(uri))
        .filter(o -> o.state() == ObligationState.RETAINED)
        .flatMap(o -> o.retainUntil().stream())
        .filter(until -> clock.instant().isBefore(until))
        .findFirst();
  }

  /**
   * Whether the session was terminated within the wait; otherwise termination continues, followed
   * through {@code operation} once the reconciler began it.
   */
  public record Deleted(
      Session session,
      boolean terminated,
      Optional<dev.berth.core.operation.OperationId> operation) {}

  public Deleted delete(Scope scope, SessionId id, OptionalLong ifMatch, String actor) {
    // A second DELETE is a 404, as for an id that never existed (the original's contract).
    get(scope, id);
    requestIntent(id, DesiredState.TERMINATED, ifMatch, actor, "deleted through the API");
    Session settled =
        signals
            .await(id, s -> s.phase() == Phase.TERMINATED, settings.deleteWait())
            .orElseGet(() -> getIncludingDeleted(scope, id));
    boolean terminated = settled.phase() == Phase.TERMINATED;
    Optional<dev.berth.core.operation.OperationId> operation =
        terminated
            ? Optional.empty()
            : store.listOperations(id).stream()
                .filter(op -> op.type() == dev.berth.core.operation.OperationType.TERMINATE)
                .reduce((first, second) -> second)
                .map(Operation::id);
    return new Deleted(settled, terminated, operation);
  }

  /** The precise lifecycle, for messages: {@code provisioning}, {@code suspended}, … */
  private static String phaseName(Session s) {
    return s.phase().name().toLowerCase(java.util.Locale.ROOT);
  }

  public Session switchTo(Scope scope, SessionId id, OptionalLong ifMatch, String actor) {
    Session current = get(scope, id);
    checkIfMatch(current, ifMatch);
    activate(scope, id, "switch", actor);
    return get(scope, id);
  }

  /**
   * Suspends the session now: its workspace is archived and its runtime reclaimed. Idempotent on a
   * snapshot; waits (bounded) for the suspend to finish. An access that aborts the suspend
   * meanwhile (only one of the idle policy's can) makes this a 409.
   */
  public Session snapshot(Scope scope, SessionId id, OptionalLong ifMatch, String actor) {
    Session current = get(scope, id);
    checkIfMatch(current, ifMatch);
    if (!settings.suspendEnabled()) {
      throw new RequestRefused(
          503,
          "SNAPSHOT_UNAVAILABLE",
          "checkpoint strategy is disabled: snapshots of "
              + current.workloadType().value()
              + " sessions are turned off on this installation; the runtime is kept");
    }
    switch (current.phase()) {
      case SUSPENDED -> {
        return current;
      }
      case FAILED -> throw failed(current);
      case TERMINATING, TERMINATED ->
          throw new TerminalIntentException(current.subject(), "SUSPENDED");
      case REQUESTED, PROVISIONING, READY, SUSPENDING, RESUMING ->
          requestIntent(id, DesiredState.SUSPENDED, ifMatch, actor, "snapshot through the API");
    }
    Session settled =
        signals
            .await(id, SessionService::settledSuspend, settings.suspendWait())
            .orElseGet(() -> get(scope, id));
    failIfFailed(settled);
    if (settled.phase() == Phase.SUSPENDED) {
      return settled;
    }
    if (settled.intent().desired() != DesiredState.SUSPENDED
        && settled.intent().requestedBy().equals(dev.berth.core.lifecycle.Reconciler.ACTOR)) {
      // Refused at snapshot time rather than discovered at restore: the session stays active.
      throw new RequestRefused(
          422,
          "SNAPSHOT_REFUSED",
          "session " + id.value() + " stays active: " + settled.intent().reason());
    }
    if (settled.intent().desired() != DesiredState.SUSPENDED) {
      throw new RequestRefused(
          409,
          "CONFLICT",
          "the snapshot was given up: the session is now asked to be "
              + settled.intent().desired()
              + " by "
              + settled.intent().requestedBy()
              + " ("
              + settled.intent().reason()
              + "); request it again if it is still wanted");
    }
    throw new RequestRefused(
        504,
        "DEADLINE_EXCEEDED",
        "session was not suspended within "
            + settings.suspendWait().toSeconds()
            + " s; the suspend goes on, watch the session or its operation");
  }

  private static boolean settledSuspend(Session s) {
    return s.phase() == Phase.SUSPENDED
        || s.phase() == Phase.FAILED
        || s.phase() == Phase.TERMINATING
        || s.phase() == Phase.TERMINATED
        || s.intent().desired() != DesiredState.SUSPENDED;
  }

  /**
   * Brings a deleted session back from its last archive, within the recovery window, as a new
   * session that is a snapshot of it (the first access restores it). The new session's id derives
   * from the deleted one's, so a retry after a crash finishes the same recovery instead of making a
   * second copy. The archive is handed over first: from then on the deleted session's retention no
   * longer deletes it.
   */
  public Session recover(Scope scope, SessionId id, String actor) {
    Session deleted = getIncludingDeleted(scope, id);
    if (deleted.phase() != Phase.TERMINATED) {
      throw new RequestRefused(
          409,
          "INVALID_STATE",
          "only a deleted session can be recovered; session "
              + id.value()
              + " is "
              + phaseName(deleted)
              + (deleted.phase() == Phase.TERMINATING ? " (being deleted: retry shortly)" : ""));
    }
    SessionId heir = heirOf(id);
    Optional<Session> existing = store.get(heir);
    if (existing.isPresent()) {
      throw new RequestRefused(
          409,
          "ALREADY_RECOVERED",
          "session " + id.value() + " was recovered already, as session " + heir.value());
    }
    ArchiveRef archive =
        deleted
            .archive()
            .orElseThrow(
                () ->
                    new RequestRefused(
                        410,
                        "NOT_RECOVERABLE",
                        "session "
                            + id.value()
                            + " was never suspended, so no archive of it exists; a session is"
                            + " recoverable from its last snapshot only"));
    // The recovered session is a snapshot: it holds no slot until it is restored (which is
    // admitted then), but the tenant must still be granted its workload type.
    admission.checkMayCreate(scope.principal(), deleted.workloadType(), deleted.tenant(), 0);
    handOver(deleted, archive, heir);
    Instant now = clock.instant();
    Session recovered = store.create(Session.recovered(heir, deleted, archive, now, actor));
    store.append(
        dev.berth.core.store.AuditEvent.of(
            heir,
            now,
            actor,
            "session.recovered",
            "from deleted session " + id.value() + ", archive generation " + archive.generation()));
    return recovered;
  }

  /** Marks the deleted session's retained archive as handed to {@code heir}. */
  private void handOver(Session deleted, ArchiveRef archive, SessionId heir) {
    String handedOver = "handed to recovered session " + heir.value();
    dev.berth.core.store.Retry.onConflict(() -> handOverOnce(deleted, archive, handedOver));
  }

  /**
   * One attempt of {@link #handOver}; a version conflict makes {@link dev.berth.core.store.Retry}
   * read again.
   */
  private boolean handOverOnce(Session deleted, ArchiveRef archive, String handedOver) {
    Session current = store.get(deleted.id()).orElseThrow(SessionService::notFound);
    Optional<dev.berth.core.session.Obligation> retention =
        current.obligations().stream()
            .filter(o -> o.action() == ObligationAction.RETAIN_ARCHIVE)
            .filter(o -> o.resource().equals(archive.uri()))
            .findFirst();
    if (retention.isPresent() && retention.get().detail().equals(handedOver)) {
      return true; // a crashed recovery got this far
    }
    boolean kept =
        retention
            .filter(o -> o.state() == ObligationState.RETAINED)
            .flatMap(o -> o.retainUntil())
            .filter(until -> clock.instant().isBefore(until))
            .isPresent();
    if (!kept) {
      throw new RequestRefused(
          410,
          "RECOVERY_WINDOW_ENDED",
          "the last archive of session "
              + deleted.id().value()
              + " is no longer kept"
              + retention
                  .flatMap(o -> o.retainUntil())
                  .map(u -> " (kept until " + u + ")")
                  .orElse("")
              + "; it cannot be recovered");
    }
    store.compareAndSet(
        current.withObligation(
            ObligationAction.RETAIN_ARCHIVE, archive.uri(), o -> o.complete(handedOver)),
        current.version());
    return true;
  }

  /** The id a deleted session's recovery gets: derived, so that a retried recovery finds it. */
  static SessionId heirOf(SessionId deleted) {
    return new SessionId(
        dev.berth.core.digest.Sha256.hexPrefix("berth-recover:" + deleted.value(), 16));
  }

  // ---- idle policy --------------------------------------------------------------------------

  /** The idle policy's decision for a session now, and whether suspension is enabled at all. */
  public record IdleView(Session session, IdleDecision decision, boolean suspendEnabled) {}

  /** Explains the idle decision; passive (never touches, never restores). */
  public IdleView idle(Scope scope, SessionId id) {
    Session s = get(scope, id);
    // Without the agent's word the explanation assumes nothing runs (the reaper then does not act).
    WorkloadActivity workload = probe.probe(s).orElse(WorkloadActivity.quiet());
    return new IdleView(
        s, idlePolicy.decide(s, workload, clock.instant()), settings.suspendEnabled());
  }

  /** The idle policy in force (the reaper applies it). */
  public IdlePolicy idlePolicy() {
    return idlePolicy;
  }

  /** Holds the session against suspension until now + {@code hold} (capped); not access. */
  public Session keepAlive(Scope scope, SessionId id, Optional<Duration> hold) {
    Duration max = idlePolicy.settings().maxKeepAlive();
    Duration wanted = hold.map(h -> h.compareTo(max) > 0 ? max : h).orElse(max);
    return dev.berth.core.store.Retry.onConflict(
        () -> {
          Session current = get(scope, id);
          return store.compareAndSet(
              current.withActivity(current.activity().keptAliveUntil(clock.instant().plus(wanted))),
              current.version());
        });
  }

  // ---- data plane ---------------------------------------------------------------------------

  /**
   * What a read returns: the session after it was touched, the path taken, and the agent's answer
   * ({@code OutputRead}, at most the agent's cap of payload), open for the caller to pass on and
   * close.
   */
  public record ReadResult(Session session, String path, AgentData.OpenStream output)
      implements AutoCloseable {
    @Override
    public void close() throws java.io.IOException {
      output.close();
    }
  }

  public ReadResult read(Scope scope, SessionId id, long offset, String actor) {
    if (offset < 0) {
      throw new InvalidValueException("invalid input: offset must be >= 0, was " + offset);
    }
    Served<AgentData.OpenStream> served =
        serve(scope, id, "read", actor, session -> data.openRead(endpoint(session), offset));
    try {
      // The session as the access left it (touched, made active): read once, not again here.
      return new ReadResult(
          served.activation().session(), served.activation().path(), served.result());
    } catch (RuntimeException e) {
      try {
        served.result().close();
      } catch (java.io.IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** The session after a write, and the path taken. */
  public record WriteResult(Session session, String path) {}

  public WriteResult write(Scope scope, SessionId id, byte[] payload, String actor) {
    // Where the input got to: a retry after an idle suspend was aborted sends only the rest.
    int[] delivered = {0};
    Served<Integer> served =
        serve(
            scope,
            id,
            "write",
            actor,
            session -> {
              AgentEndpoints.Endpoint agent = endpoint(session);
              // The agent takes input in pieces of at most 1 MiB; the PTY sees one stream.
              while (delivered[0] < payload.length) {
                int to = Math.min(payload.length, delivered[0] + MAX_INPUT_SLICE);
                data.input(agent, java.util.Arrays.copyOfRange(payload, delivered[0], to));
                delivered[0] = to;
              }
              return payload.length;
            });
    return new WriteResult(served.activation().session(), served.activation().path());
  }

  /**
   * The agent of a session that may be streamed passively: it holds a runtime and is ready. Never
   * restores or touches.
   */
  public AgentEndpoints.Endpoint streamable(Scope scope, SessionId id) {
    Session session = get(scope, id);
    if (session.phase() != Phase.READY || session.runtime().isEmpty()) {
      throw new RequestRefused(
          422,
          "INVALID_STATE",
          "session in invalid state for operation: it is "
              + phaseName(session)
              + " and has no running runtime; the stream never restores (read, write or switch"
              + " do)");
    }
    return endpoint(session);
  }

  /** The agent of a session made active for interactive use (attach input, executions). */
  public AgentEndpoints.Endpoint active(Scope scope, SessionId id, String verb, String actor) {
    Activation activation = activate(scope, id, verb, actor);
    return endpoint(activation.session());
  }

  public void touch(SessionId id) {
    store.touch(id, clock.instant());
  }

  public List<Operation> operations(Scope scope, SessionId id) {
    get(scope, id);
    return store.listOperations(id);
  }

  public Operation operation(Scope scope, OperationId id) {
    Operation op = store.getOperation(id).orElseThrow(() -> new NotFoundException("operation"));
    store
        .get(op.sessionId())
        .filter(scope::sees)
        .orElseThrow(() -> new NotFoundException("operation"));
    return op;
  }

  // ---- internals ----------------------------------------------------------------------------

  /**
   * Runs a data-plane call; when the agent answers that the workload is gone, the reconciler is
   * asked to look at the session now rather than at its next resync, so the session's state tells
   * the truth soon after.
   */
  private <T> T observed(SessionId id, java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (AgentCommandFailedException | dev.berth.core.error.AgentUnreachableException e) {
      loop.enqueue(id);
      throw e;
    } catch (NotFoundException runtimeGone) {
      // The agent no longer hosts this runtime: the session exists, its runtime does not.
      loop.enqueue(id);
      throw new RequestRefused(
          503,
          "RUNTIME_UNAVAILABLE",
          "the session's runtime is gone; the session is being reconciled, retry shortly");
    }
  }

  private record Activation(Session session, String path, boolean wasIdle) {}

  private record Served<T>(Activation activation, T result) {}

  /**
   * Makes the session active (counting the access), then makes the call. When an idle suspend
   * paused the runtime between the activation and the call (the agent answers 409 SUSPENDING), the
   * access wins: it aborts the suspend and the call is made once more.
   */
  private <T> Served<T> serve(
      Scope scope,
      SessionId id,
      String verb,
      String actor,
      java.util.function.Function<Session, T> call) {
    Activation activation = activate(scope, id, verb, actor);
    try {
      return new Served<>(activation, observed(id, () -> call.apply(activation.session())));
    } catch (AgentCommandFailedException e) {
      if (!"SUSPENDING".equals(e.reason()) || !suspendedByIdlePolicy(get(scope, id))) {
        throw e;
      }
      Activation again = activate(scope, id, verb, actor);
      return new Served<>(again, observed(id, () -> call.apply(again.session())));
    }
  }

  /**
   * Counts the access, then makes the session active. The access is counted ({@code lastAccess})
   * before the session is read again to decide, and the idle reaper reads {@code lastAccess} again
   * after it wrote its intent, so one of the two always sees the other: either the reaper sees this
   * access and takes its suspend back, or this access sees the reaper's intent and wins over it.
   */
  private Activation activate(Scope scope, SessionId id, String verb, String actor) {
    Session found = get(scope, id);
    boolean wasIdle =
        found.phase() == Phase.READY
            && PublicState.of(found, clock.instant(), settings.idleAfter()) == PublicState.IDLE;
    if (found.phase() != Phase.TERMINATING
        && found.phase() != Phase.TERMINATED
        && found.phase() != Phase.FAILED) {
      store.touch(id, clock.instant());
    }
    Session s = get(scope, id);
    if (suspendedByIdlePolicy(s)) {
      // An access wins over the idle policy's suspend: the intent goes back to RUNNING, and the
      // reconciler aborts the checkpoint (or, once the archive is committed, finishes the suspend
      // and restores). Only over the idle policy's: a snapshot someone asked for meanwhile stays.
      boolean won =
          intents
              .requestIf(
                  id,
                  DesiredState.RUNNING,
                  SessionService::suspendedByIdlePolicy,
                  actor,
                  "access on " + verb + " won over the idle suspend")
              .isPresent();
      loop.enqueue(id);
      if (won) {
        Session ready = awaitReady(scope, id);
        return new Activation(ready, "idle->active->" + verb, true);
      }
      s = get(scope, id);
    }
    return switch (s.phase()) {
      case READY -> new Activation(s, wasIdle ? "idle->active->" + verb : "active", wasIdle);
      case SUSPENDED -> {
        // A restore takes a runtime again: the tenant's grants and quota apply as at creation
        // (a request that finds the restore asked for already takes no second slot).
        admission.admitResume(
            scope.principal(),
            s.workloadType(),
            s.tenant(),
            store,
            id,
            () -> {
              requestIntent(
                  id, DesiredState.RUNNING, OptionalLong.empty(), actor, "restore on " + verb);
              return null;
            });
        yield new Activation(awaitReady(scope, id), "snapshot->restore->" + verb, false);
      }
      case REQUESTED, PROVISIONING, RESUMING -> {
        loop.enqueue(id);
        yield new Activation(awaitReady(scope, id), "active", false);
      }
      case SUSPENDING ->
          throw new RequestRefused(
              409,
              "SUSPENDING",
              "session is being suspended; retry once it is a snapshot, which the request then"
                  + " restores");
      case TERMINATING, TERMINATED -> throw new TerminalIntentException(s.subject(), "RUNNING");
      case FAILED -> throw failed(s);
    };
  }

  /** A suspend the idle policy asked for that has not finished: an access still wins over it. */
  private static boolean suspendedByIdlePolicy(Session s) {
    return s.intent().desired() == DesiredState.SUSPENDED
        && s.intent().requestedBy().equals(IdlePolicy.ACTOR)
        && (s.phase() == Phase.READY || s.phase() == Phase.SUSPENDING);
  }

  private Session awaitReady(Scope scope, SessionId id) {
    Session settled =
        signals
            .await(id, SessionService::settledRunning, settings.createWait())
            .orElseGet(() -> get(scope, id));
    failIfFailed(settled);
    if (settled.phase() == Phase.TERMINATING || settled.phase() == Phase.TERMINATED) {
      throw new TerminalIntentException(settled.subject(), "RUNNING");
    }
    if (settled.phase() != Phase.READY && settled.intent().desired() != DesiredState.RUNNING) {
      throw new RequestRefused(
          409,
          "CONFLICT",
          "while this request waited for the session, "
              + settled.intent().requestedBy()
              + " asked for it to be "
              + settled.intent().desired()
              + " ("
              + settled.intent().reason()
              + "); retry the request, which restores it once it is a snapshot");
    }
    if (settled.phase() != Phase.READY) {
      throw new RequestRefused(
          504,
          "DEADLINE_EXCEEDED",
          "session did not become active within "
              + settings.createWait().toSeconds()
              + " s; it keeps converging, retry the request");
    }
    return settled;
  }

  /**
   * Whether a session asked to run got there or never will: unlike {@link #settledStart}, a phase
   * on the way down (a suspend being aborted, a snapshot about to be restored) is not an answer.
   */
  private static boolean settledRunning(Session s) {
    return switch (s.phase()) {
      case READY, FAILED, TERMINATING, TERMINATED -> true;
      case REQUESTED, PROVISIONING, RESUMING, SUSPENDING, SUSPENDED ->
          s.intent().desired() != DesiredState.RUNNING;
    };
  }

  private static boolean settledStart(Session s) {
    return switch (s.phase()) {
      case READY, FAILED, TERMINATING, TERMINATED, SUSPENDING, SUSPENDED -> true;
      case REQUESTED, PROVISIONING, RESUMING -> false;
    };
  }

  private void failIfFailed(Session s) {
    if (s.phase() == Phase.FAILED) {
      throw failed(s);
    }
  }

  private static RequestRefused failed(Session s) {
    String why = s.failure().map(f -> f.reason() + ": " + f.message()).orElse("no reason recorded");
    String wayOut =
        s.archive().isPresent()
            ? "; delete it, then POST /sessions/"
                + s.id().value()
                + "/recover brings its last"
                + " archive back as a new session"
            : "; delete it and create a new one";
    return new RequestRefused(
        503, "RUNTIME_UNAVAILABLE", "session " + s.id().value() + " failed: " + why + wayOut);
  }

  private void requestIntent(
      SessionId id, DesiredState desired, OptionalLong ifMatch, String actor, String reason) {
    try {
      intents.request(id, desired, ifMatch, actor, reason);
    } catch (StaleIntentException e) {
      throw new RequestRefused(
          412,
          "PRECONDITION_FAILED",
          "If-Match names intent version "
              + e.offered()
              + " but the session is at "
              + e.current()
              + "; re-read the session and decide again");
    }
    loop.enqueue(id);
  }

  private static void checkIfMatch(Session s, OptionalLong ifMatch) {
    if (ifMatch.isPresent() && ifMatch.getAsLong() != s.intent().version()) {
      throw new RequestRefused(
          412,
          "PRECONDITION_FAILED",
          "If-Match names intent version "
              + ifMatch.getAsLong()
              + " but the session is at "
              + s.intent().version()
              + "; re-read the session and decide again");
    }
  }

  private AgentEndpoints.Endpoint endpoint(Session s) {
    return endpoints.resolve(s.runtime().orElseThrow(() -> failed(s)));
  }

  private static WorkloadType workloadType(Optional<String> requested) {
    String type = requested.orElse(WorkloadType.SHELL.value());
    if (!WORKLOAD_TYPES.contains(type)) {
      throw new InvalidValueException(
          "invalid input: workloadType \"" + type + "\" is not one of " + WORKLOAD_TYPES);
    }
    return new WorkloadType(type);
  }

  private static NotFoundException notFound() {
    return new NotFoundException("session");
  }
}
