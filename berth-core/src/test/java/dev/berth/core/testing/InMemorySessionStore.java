package dev.berth.core.testing;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.StaleFenceException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.FencingToken;
import dev.berth.core.store.Lease;
import dev.berth.core.store.Page;
import dev.berth.core.store.SessionLeases;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A store in memory, for model tests. One lock guards everything: simple and obviously atomic. It
 * runs the same contract suite as every real adapter. {@link #snapshot()} and {@link #restore} copy
 * its whole state, to simulate restoring an older store backup.
 */
public final class InMemorySessionStore
    implements SessionStore,
        SessionLeases,
        dev.berth.core.store.InstallationAudit,
        dev.berth.core.store.StoreEpochs {
  private final InstantSource clock;
  private final ReentrantLock lock = new ReentrantLock();
  private State state = new State();

  /** Everything the store holds; copied by snapshot and restore. */
  private static final class State {
    final Map<SessionId, Session> sessions = new LinkedHashMap<>();
    final Map<OperationId, Operation> operations = new LinkedHashMap<>();
    final Map<ExecutionId, Execution> executions = new LinkedHashMap<>();
    final List<AuditEvent> events = new ArrayList<>();
    final Map<SessionId, Lease> leases = new HashMap<>();
    final Map<SessionId, Long> tokens = new HashMap<>();
    long epoch;
    @org.jspecify.annotations.Nullable Instant recoverySince;

    State copy() {
      State c = new State();
      c.epoch = epoch;
      c.recoverySince = recoverySince;
      c.sessions.putAll(sessions);
      c.operations.putAll(operations);
      c.executions.putAll(executions);
      c.events.addAll(events);
      c.leases.putAll(leases);
      c.tokens.putAll(tokens);
      return c;
    }
  }

  public InMemorySessionStore(InstantSource clock) {
    this.clock = clock;
  }

  /** An opaque copy of the whole store, as a backup would be. */
  public Object snapshot() {
    return locked(() -> state.copy());
  }

  /** Replaces the whole store with an earlier {@link #snapshot()}. */
  public void restore(Object snapshot) {
    locked(() -> state = ((State) snapshot).copy());
  }

  @Override
  public long current() {
    return locked(() -> state.epoch);
  }

  @Override
  public long advance() {
    return locked(() -> ++state.epoch);
  }

  @Override
  public long raise(long floor) {
    return locked(() -> state.epoch = Math.max(state.epoch, floor));
  }

  @Override
  public Optional<Instant> recoverySince() {
    return locked(() -> Optional.ofNullable(state.recoverySince));
  }

  @Override
  public Instant beginRecovery(Instant since) {
    return locked(
        () -> {
          Instant began = state.recoverySince;
          if (began == null) {
            state.recoverySince = since;
            return since;
          }
          return began;
        });
  }

  @Override
  public void endRecovery() {
    locked(
        () -> {
          state.recoverySince = null;
          return null;
        });
  }

  @Override
  public Session create(Session session) {
    return locked(
        () -> {
          if (state.sessions.containsKey(session.id())) {
            throw new AlreadyExistsException("session " + session.id());
          }
          Session stored = session.withVersion(1);
          state.sessions.put(session.id(), stored);
          return stored;
        });
  }

  @Override
  public Optional<Session> get(SessionId id) {
    return locked(() -> Optional.ofNullable(state.sessions.get(id)));
  }

  @Override
  public Page<Session> list(SessionQuery query) {
    return locked(
        () -> {
          List<Session> matching =
              state.sessions.values().stream()
                  .filter(s -> query.tenant().map(t -> t.equals(s.tenant())).orElse(true))
                  .filter(s -> query.phases().isEmpty() || query.phases().contains(s.phase()))
                  .filter(query.deleted()::admits)
                  .sorted(Comparator.comparing(Session::createdAt).thenComparing(Session::id))
                  .filter(s -> query.pageToken().map(t -> key(s).compareTo(t) > 0).orElse(true))
                  .toList();
          List<Session> items = matching.subList(0, Math.min(query.limit(), matching.size()));
          Optional<String> next =
              matching.size() > query.limit()
                  ? Optional.of(key(items.get(items.size() - 1)))
                  : Optional.empty();
          return new Page<>(items, next);
        });
  }

  /** A keyset cursor that sorts like (createdAt, id): fixed-width epoch nanos, then the id. */
  private static String key(Session s) {
    Instant t = s.createdAt();
    return String.format("%020d.%09d/%s", t.getEpochSecond(), t.getNano(), s.id().value());
  }

  @Override
  public Session compareAndSet(Session next, long expectedVersion) {
    return locked(() -> put(next, expectedVersion));
  }

  @Override
  public Session compareAndSet(Session next, long expectedVersion, FencingToken fence) {
    return locked(
        () -> {
          requireFence(next.id(), fence);
          return put(next, expectedVersion);
        });
  }

  private Session put(Session next, long expectedVersion) {
    Session stored = state.sessions.get(next.id());
    if (stored == null) {
      throw new NotFoundException("session " + next.id());
    }
    if (stored.version() != expectedVersion) {
      throw new VersionConflictException("session " + next.id(), expectedVersion, stored.version());
    }
    Session merged = next.touched(stored.activity().lastAccess()).withVersion(expectedVersion + 1);
    state.sessions.put(next.id(), merged);
    return merged;
  }

  private volatile java.util.function.Consumer<SessionId> beforeTouch = id -> {};

  /** Runs {@code hook} before each touch is applied: what races with an access's write. */
  public void beforeTouch(java.util.function.Consumer<SessionId> hook) {
    this.beforeTouch = hook;
  }

  @Override
  public boolean touch(SessionId id, Instant at) {
    beforeTouch.accept(id);
    return locked(
        () -> {
          Session stored = state.sessions.get(id);
          if (stored == null) {
            return false;
          }
          state.sessions.put(id, stored.touched(at));
          return true;
        });
  }

  @Override
  public SessionLeases leases() {
    return this;
  }

  @Override
  public Operation createOperation(Operation operation) {
    return locked(
        () -> state.operations.computeIfAbsent(operation.id(), k -> operation.withVersion(1)));
  }

  @Override
  public Optional<Operation> getOperation(OperationId id) {
    return locked(() -> Optional.ofNullable(state.operations.get(id)));
  }

  @Override
  public List<Operation> listOperations(SessionId session) {
    return locked(
        () ->
            state.operations.values().stream().filter(o -> o.sessionId().equals(session)).toList());
  }

  @Override
  public List<Operation> unfinishedOperations() {
    return locked(
        () -> state.operations.values().stream().filter(o -> !o.state().isFinished()).toList());
  }

  @Override
  public Operation updateOperation(Operation next, long expectedVersion, FencingToken fence) {
    return locked(
        () -> {
          Operation stored = state.operations.get(next.id());
          if (stored == null) {
            throw new NotFoundException("operation " + next.id());
          }
          requireFence(next.sessionId(), fence);
          if (stored.version() != expectedVersion) {
            throw new VersionConflictException(
                "operation " + next.id(), expectedVersion, stored.version());
          }
          Operation updated = next.withVersion(expectedVersion + 1);
          state.operations.put(next.id(), updated);
          return updated;
        });
  }

  @Override
  public Execution createExecution(Execution execution) {
    return locked(
        () -> {
          if (state.executions.containsKey(execution.id())) {
            throw new AlreadyExistsException("execution " + execution.id());
          }
          Execution stored = execution.withVersion(1);
          state.executions.put(execution.id(), stored);
          return stored;
        });
  }

  @Override
  public Optional<Execution> getExecution(ExecutionId id) {
    return locked(() -> Optional.ofNullable(state.executions.get(id)));
  }

  @Override
  public List<Execution> listExecutions(SessionId session) {
    return locked(
        () ->
            state.executions.values().stream().filter(e -> e.sessionId().equals(session)).toList());
  }

  @Override
  public Execution updateExecution(Execution next, long expectedVersion) {
    return locked(
        () -> {
          Execution stored = state.executions.get(next.id());
          if (stored == null) {
            throw new NotFoundException("execution " + next.id());
          }
          if (stored.version() != expectedVersion) {
            throw new VersionConflictException(
                "execution " + next.id(), expectedVersion, stored.version());
          }
          Execution updated = next.withVersion(expectedVersion + 1);
          state.executions.put(next.id(), updated);
          return updated;
        });
  }

  @Override
  public AuditEvent append(AuditEvent event) {
    return locked(
        () -> {
          AuditEvent stored = event.withSequence(state.events.size() + 1L);
          state.events.add(stored);
          return stored;
        });
  }

  @Override
  public List<AuditEvent> events(SessionId session, long after, int limit) {
    return locked(
        () ->
            state.events.stream()
                .filter(e -> e.sessionId().map(session::equals).orElse(false))
                .filter(e -> e.sequence() > after)
                .limit(limit)
                .toList());
  }

  @Override
  public List<AuditEvent> allEvents(long after, int limit) {
    if (limit < 0) {
      throw new InvalidValueException("event limit must be >= 0, was " + limit);
    }
    return locked(
        () -> state.events.stream().filter(e -> e.sequence() > after).limit(limit).toList());
  }

  // ---- leases ---------------------------------------------------------------------------------

  @Override
  public Optional<Lease> acquire(SessionId session, String holder, Duration ttl) {
    return locked(
        () -> {
          Instant now = clock.instant();
          Lease current = state.leases.get(session);
          boolean live = current != null && current.expiresAt().isAfter(now);
          if (live && !current.holder().equals(holder)) {
            return Optional.empty();
          }
          FencingToken token =
              live
                  ? current.token()
                  : new FencingToken(
                      state.tokens.merge(
                          session,
                          FencingToken.next(0, state.epoch).value(),
                          (was, first) -> FencingToken.next(was, state.epoch).value()));
          Lease lease = new Lease(session, holder, token, now.plus(ttl));
          state.leases.put(session, lease);
          return Optional.of(lease);
        });
  }

  @Override
  public Lease renew(Lease lease, Duration ttl) {
    return locked(
        () -> {
          Instant now = clock.instant();
          Lease current = state.leases.get(lease.sessionId());
          if (current == null
              || !current.token().equals(lease.token())
              || !current.expiresAt().isAfter(now)) {
            long at = state.tokens.getOrDefault(lease.sessionId(), 0L);
            throw new StaleFenceException(
                "lease of session " + lease.sessionId(), lease.token().value(), at);
          }
          Lease renewed =
              new Lease(lease.sessionId(), lease.holder(), lease.token(), now.plus(ttl));
          state.leases.put(lease.sessionId(), renewed);
          return renewed;
        });
  }

  @Override
  public void release(Lease lease) {
    locked(
        () -> {
          Lease current = state.leases.get(lease.sessionId());
          if (current != null && current.token().equals(lease.token())) {
            state.leases.remove(lease.sessionId());
          }
          return null;
        });
  }

  @Override
  public Optional<Lease> current(SessionId session) {
    return locked(
        () ->
            Optional.ofNullable(state.leases.get(session))
                .filter(l -> l.expiresAt().isAfter(clock.instant())));
  }

  private void requireFence(SessionId session, FencingToken fence) {
    long current = state.tokens.getOrDefault(session, 0L);
    if (fence.value() != current) {
      throw new StaleFenceException("session " + session, fence.value(), current);
    }
  }

  private <T> T locked(Supplier<T> action) {
    lock.lock();
    try {
      return action.get();
    } finally {
      lock.unlock();
    }
  }
}
