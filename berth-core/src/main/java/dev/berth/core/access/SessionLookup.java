package dev.berth.core.access;

import dev.berth.core.error.NotFoundException;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.ObligationAction;
import dev.berth.core.session.ObligationState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * Reads sessions and their operations as a caller may see them. A session outside the caller's
 * scope and a deleted one (its deletion accepted) are both "not found", exactly as one that never
 * existed, as the original platform, which deletes the record, answers.
 */
public final class SessionLookup {

  private final SessionStore store;
  private final InstantSource clock;
  private final Optional<AccessLog> accesses;

  public SessionLookup(SessionStore store, InstantSource clock) {
    this(store, clock, Optional.empty());
  }

  /**
   * @param accesses whose accesses not yet written show in what {@link #get} answers
   */
  public SessionLookup(SessionStore store, InstantSource clock, Optional<AccessLog> accesses) {
    this.store = store;
    this.clock = clock;
    this.accesses = accesses;
  }

  public Session get(Scope scope, SessionId id) {
    Session s =
        store
            .get(id)
            .filter(scope::sees)
            .filter(found -> !found.deleted())
            .orElseThrow(SessionLookup::notFound);
    return accesses.map(log -> log.withPending(s)).orElse(s);
  }

  /** The session deleted or not: what recovery and a deletion's own answer need. */
  public Session getIncludingDeleted(Scope scope, SessionId id) {
    return store.get(id).filter(scope::sees).orElseThrow(SessionLookup::notFound);
  }

  public List<Operation> operations(Scope scope, SessionId id) {
    get(scope, id);
    return store.listOperations(id);
  }

  /**
   * Every operation of the session, deleted or not: a deletion's termination and what came before
   * it stay readable for the administrator after the session's own routes answer 404.
   */
  public List<Operation> operationsIncludingDeleted(Scope scope, SessionId id) {
    getIncludingDeleted(scope, id);
    return store.listOperations(id);
  }

  public Operation operation(Scope scope, OperationId id) {
    Operation op = store.getOperation(id).orElseThrow(() -> new NotFoundException("operation"));
    if (store.get(op.sessionId()).filter(scope::sees).isEmpty()) {
      throw new NotFoundException("operation");
    }
    return op;
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

  static NotFoundException notFound() {
    return new NotFoundException("session");
  }
}
