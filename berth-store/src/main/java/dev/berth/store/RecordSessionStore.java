package dev.berth.store;

import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.FencingToken;
import dev.berth.core.store.Page;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link SessionStore} assembled from the parts that keep each kind of record: the sessions, the
 * operations, the executions and the audit log. An adapter implements the four parts for its
 * technology (tables, ConfigMaps) and extends this class, which only delegates: the port's methods
 * are read in one place, and how one kind of record is kept in another. What the port says of each
 * method (versions, fencing, errors) is the part's to keep; the leases are the adapter's own.
 */
public abstract class RecordSessionStore implements SessionStore {

  /** Keeps the sessions. */
  public interface Sessions {
    Session create(Session session);

    Optional<Session> get(SessionId id);

    Page<Session> list(SessionQuery query);

    /** As {@link SessionStore#compareAndSet(Session, long, FencingToken)} when fenced. */
    Session compareAndSet(Session next, long expectedVersion, Optional<FencingToken> fence);

    boolean touch(SessionId id, Instant at);
  }

  /** Keeps the operations. */
  public interface Operations {
    Operation create(Operation operation);

    Optional<Operation> get(OperationId id);

    List<Operation> ofSession(SessionId session);

    List<Operation> unfinished();

    Operation update(Operation next, long expectedVersion, FencingToken fence);
  }

  /** Keeps the executions. */
  public interface Executions {
    Execution create(Execution execution);

    Optional<Execution> get(ExecutionId id);

    List<Execution> ofSession(SessionId session);

    Execution update(Execution next, long expectedVersion);
  }

  /** Keeps the audit log of each session. */
  public interface AuditTrail {
    AuditEvent append(AuditEvent event);

    List<AuditEvent> events(SessionId session, long after, int limit);
  }

  /** The four parts, built together by the adapter before it hands them over. */
  public record Parts(
      Sessions sessions, Operations operations, Executions executions, AuditTrail audit) {
    public Parts {
      Objects.requireNonNull(sessions, "sessions");
      Objects.requireNonNull(operations, "operations");
      Objects.requireNonNull(executions, "executions");
      Objects.requireNonNull(audit, "audit");
    }
  }

  private final Parts parts;

  protected RecordSessionStore(Parts parts) {
    this.parts = Objects.requireNonNull(parts, "parts");
  }

  // ---- sessions -------------------------------------------------------------------------------

  @Override
  public final Session create(Session session) {
    return parts.sessions().create(session);
  }

  @Override
  public final Optional<Session> get(SessionId id) {
    return parts.sessions().get(id);
  }

  @Override
  public final Page<Session> list(SessionQuery query) {
    return parts.sessions().list(query);
  }

  @Override
  public final Session compareAndSet(Session next, long expectedVersion) {
    return parts.sessions().compareAndSet(next, expectedVersion, Optional.empty());
  }

  @Override
  public final Session compareAndSet(Session next, long expectedVersion, FencingToken fence) {
    return parts.sessions().compareAndSet(next, expectedVersion, Optional.of(fence));
  }

  @Override
  public final boolean touch(SessionId id, Instant at) {
    return parts.sessions().touch(id, at);
  }

  // ---- operations -----------------------------------------------------------------------------

  @Override
  public final Operation createOperation(Operation operation) {
    return parts.operations().create(operation);
  }

  @Override
  public final Optional<Operation> getOperation(OperationId id) {
    return parts.operations().get(id);
  }

  @Override
  public final List<Operation> listOperations(SessionId session) {
    return parts.operations().ofSession(session);
  }

  @Override
  public final List<Operation> unfinishedOperations() {
    return parts.operations().unfinished();
  }

  @Override
  public final Operation updateOperation(Operation next, long expectedVersion, FencingToken fence) {
    return parts.operations().update(next, expectedVersion, fence);
  }

  // ---- executions -----------------------------------------------------------------------------

  @Override
  public final Execution createExecution(Execution execution) {
    return parts.executions().create(execution);
  }

  @Override
  public final Optional<Execution> getExecution(ExecutionId id) {
    return parts.executions().get(id);
  }

  @Override
  public final List<Execution> listExecutions(SessionId session) {
    return parts.executions().ofSession(session);
  }

  @Override
  public final Execution updateExecution(Execution next, long expectedVersion) {
    return parts.executions().update(next, expectedVersion);
  }

  // ---- audit log ------------------------------------------------------------------------------

  @Override
  public final AuditEvent append(AuditEvent event) {
    return parts.audit().append(event);
  }

  @Override
  public final List<AuditEvent> events(SessionId session, long after, int limit) {
    return parts.audit().events(session, after, limit);
  }
}
