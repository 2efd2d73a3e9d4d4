package dev.berth.core.store;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.StaleFenceException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Durable state of sessions, their operations and executions, and the audit log. Every write of a
 * record is a compare-and-swap on the version the writer read; lifecycle writes may also carry the
 * session lease's fencing token, and then fail once that holder lost the lease. All methods are
 * thread-safe and atomic; a failed write changes nothing.
 *
 * <p>Every adapter runs the same contract test suite ({@code SessionStoreContract} in berth-core's
 * test jar).
 */
public interface SessionStore {

  /**
   * Stores a new session at version 1.
   *
   * @throws AlreadyExistsException when the id is taken
   */
  Session create(Session session);

  /** The session, or empty when there is none. Its lastAccess is the newest ever touched. */
  Optional<Session> get(SessionId id);

  /** A page of sessions ordered by creation time, then id. */
  Page<Session> list(SessionQuery query);

  /** Every session {@code query} selects, page after page (for scans, not for API answers). */
  default void forEach(SessionQuery query, Consumer<Session> action) {
    SessionQuery page = query;
    while (true) {
      Page<Session> sessions = list(page);
      sessions.items().forEach(action);
      if (sessions.nextPageToken().isEmpty()) {
        return;
      }
      page = query.after(sessions.nextPageToken().get());
    }
  }

  /**
   * Replaces the session if the store still holds {@code expectedVersion}; the stored copy gets
   * version {@code expectedVersion + 1}. lastAccess never moves backwards: the newer of the written
   * and the stored value is kept, so a concurrent {@link #touch} is never lost.
   *
   * @return the session as stored
   * @throws VersionConflictException when the stored version differs
   * @throws NotFoundException when the session does not exist
   */
  Session compareAndSet(Session next, long expectedVersion);

  /**
   * As {@link #compareAndSet(Session, long)}, and only while {@code fence} is the session lease's
   * current token.
   *
   * @throws StaleFenceException when the lease was taken over since {@code fence} was issued
   */
  Session compareAndSet(Session next, long expectedVersion, FencingToken fence);

  /**
   * Moves the session's lastAccess forwards to {@code at} (never backwards) without changing its
   * version, so that it never conflicts with compare-and-swap writers.
   *
   * @return whether the session exists
   */
  boolean touch(SessionId id, Instant at);

  /** The lease port that fences this store's lifecycle writes. */
  SessionLeases leases();

  // ---- operations ---------------------------------------------------------------------------

  /**
   * Records a new operation at version 1. Idempotent by id: when an operation with that id exists
   * the stored one is returned unchanged, so a duplicate request finds the first one's record.
   */
  Operation createOperation(Operation operation);

  Optional<Operation> getOperation(OperationId id);

  /** The session's operations, oldest first. */
  List<Operation> listOperations(SessionId session);

  /** Every operation not yet finished, oldest first (recovered after a restart). */
  List<Operation> unfinishedOperations();

  /**
   * Replaces an operation if the store still holds {@code expectedVersion} and {@code fence} is the
   * current token of its session's lease.
   *
   * @throws VersionConflictException when the stored version differs
   * @throws StaleFenceException when the writer lost the session lease
   * @throws NotFoundException when the operation does not exist
   */
  Operation updateOperation(Operation next, long expectedVersion, FencingToken fence);

  // ---- executions ---------------------------------------------------------------------------

  /**
   * Records a new execution at version 1.
   *
   * @throws AlreadyExistsException when the id is taken
   */
  Execution createExecution(Execution execution);

  Optional<Execution> getExecution(ExecutionId id);

  /** The session's executions, oldest first. */
  List<Execution> listExecutions(SessionId session);

  /**
   * Replaces an execution if the store still holds {@code expectedVersion}.
   *
   * @throws VersionConflictException when the stored version differs
   * @throws NotFoundException when the execution does not exist
   */
  Execution updateExecution(Execution next, long expectedVersion);

  // ---- audit log ----------------------------------------------------------------------------

  /** Appends an event and returns it with its assigned sequence; the log is never rewritten. */
  AuditEvent append(AuditEvent event);

  /** Up to {@code limit} events of {@code session} with a sequence above {@code after}. */
  List<AuditEvent> events(SessionId session, long after, int limit);
}
