package dev.berth.server.store.sqlite;

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
import dev.berth.server.store.CorruptRecordException;
import dev.berth.server.store.StoreAccessException;
import dev.berth.server.store.StoreJson;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The embedded {@link SessionStore} and {@link SessionLeases}: one SQLite file, for a single
 * control plane (or a few processes on one host sharing the file).
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Layout.</b> Each table has its class, which spells out its SQL: {@link SessionRows}, {@link
 * OperationRows}, {@link ExecutionRows}, {@link AuditRows} and {@link LeaseRows}; the three tables
 * of versioned records share their row shape and compare-and-swap in {@link VersionedRows}. This
 * class only delegates, so that the ports' methods are read in one place and the SQL of one table
 * in another. Every method is one transaction (or one autocommit read) run by the table class; a
 * fenced write checks the lease through {@link LeaseRows} inside the write's transaction. Pooling,
 * transactions and migrations are in {@link SqliteDatabase}, the page token in {@link PageCursor},
 * the body format in {@link StoreJson} and the instant columns in {@link EpochNanos}.
 *
 * <p><b>Concurrency.</b> SQLite allows one writer at a time per file. Every write (including {@link
 * #touch}, lease changes and audit appends) takes an in-process {@link
 * java.util.concurrent.locks.ReentrantLock} and then runs in a {@code BEGIN IMMEDIATE} transaction,
 * which takes SQLite's write lock up front. The in-process lock hands the write lock from thread to
 * thread without SQLite's busy handler, which waits by sleeping with back-off and is neither fair
 * nor fast under the contention of many threads; it is a {@code ReentrantLock} rather than {@code
 * synchronized} so that virtual threads do not pin their carrier while a write does I/O. {@code
 * BEGIN IMMEDIATE} still matters: it makes every read a write depends on (the version, the fencing
 * token, the lease row) part of the same serialized transaction, and another process sharing the
 * file waits for up to ten seconds ({@code busy_timeout}) instead of failing with {@code
 * SQLITE_BUSY}. Reads are single autocommit statements on a small HikariCP pool; in WAL mode they
 * never wait for the writer and see the last committed state.
 *
 * <p><b>Failure modes.</b> A body that cannot be decoded raises {@link CorruptRecordException}
 * naming the record; an unusable database raises {@link StoreAccessException}; a call after {@link
 * #close()} raises {@link IllegalStateException}.
 */
public final class SqliteSessionStore implements SessionStore, SessionLeases, AutoCloseable {

  private final SqliteDatabase db;
  private final LeaseRows leases;
  private final SessionRows sessions;
  private final OperationRows operations;
  private final ExecutionRows executions;
  private final AuditRows audit;

  private SqliteSessionStore(SqliteDatabase db, InstantSource clock) {
    StoreJson json = new StoreJson();
    this.db = db;
    this.leases = new LeaseRows(db, clock);
    this.sessions = new SessionRows(db, json, leases);
    this.operations = new OperationRows(db, json, leases);
    this.executions = new ExecutionRows(db, json);
    this.audit = new AuditRows(db);
  }

  /**
   * Opens the store in {@code dbFile}, creating the file and its parent directories when missing
   * and migrating the schema to the newest version.
   *
   * @param clock judges lease expiry
   * @throws StoreAccessException when the file cannot be created, opened or migrated
   */
  public static SqliteSessionStore open(Path dbFile, InstantSource clock) {
    Objects.requireNonNull(dbFile, "dbFile");
    Objects.requireNonNull(clock, "clock");
    return new SqliteSessionStore(SqliteDatabase.open(dbFile), clock);
  }

  /** The database file, as an absolute path. */
  public Path file() {
    return db.file();
  }

  /** The database, shared with {@link SqliteTenantDirectory}; this store owns and closes it. */
  SqliteDatabase database() {
    return db;
  }

  /** Closes the connection pool; idempotent. */
  @Override
  public void close() {
    db.close();
  }

  // ---- sessions -------------------------------------------------------------------------------

  @Override
  public Session create(Session session) {
    return sessions.create(session);
  }

  @Override
  public Optional<Session> get(SessionId id) {
    return sessions.get(id);
  }

  @Override
  public Page<Session> list(SessionQuery query) {
    return sessions.list(query);
  }

  @Override
  public Session compareAndSet(Session next, long expectedVersion) {
    return sessions.compareAndSet(next, expectedVersion);
  }

  @Override
  public Session compareAndSet(Session next, long expectedVersion, FencingToken fence) {
    return sessions.compareAndSet(next, expectedVersion, fence);
  }

  @Override
  public boolean touch(SessionId id, Instant at) {
    return sessions.touch(id, at);
  }

  @Override
  public SessionLeases leases() {
    return this;
  }

  // ---- operations -----------------------------------------------------------------------------

  @Override
  public Operation createOperation(Operation operation) {
    return operations.create(operation);
  }

  @Override
  public Optional<Operation> getOperation(OperationId id) {
    return operations.get(id);
  }

  @Override
  public List<Operation> listOperations(SessionId session) {
    return operations.ofSession(session);
  }

  @Override
  public List<Operation> unfinishedOperations() {
    return operations.unfinished();
  }

  @Override
  public Operation updateOperation(Operation next, long expectedVersion, FencingToken fence) {
    return operations.update(next, expectedVersion, fence);
  }

  // ---- executions -----------------------------------------------------------------------------

  @Override
  public Execution createExecution(Execution execution) {
    return executions.create(execution);
  }

  @Override
  public Optional<Execution> getExecution(ExecutionId id) {
    return executions.get(id);
  }

  @Override
  public List<Execution> listExecutions(SessionId session) {
    return executions.ofSession(session);
  }

  @Override
  public Execution updateExecution(Execution next, long expectedVersion) {
    return executions.update(next, expectedVersion);
  }

  // ---- audit log ------------------------------------------------------------------------------

  @Override
  public AuditEvent append(AuditEvent event) {
    return audit.append(event);
  }

  @Override
  public List<AuditEvent> events(SessionId session, long after, int limit) {
    return audit.events(session, after, limit);
  }

  // ---- leases ---------------------------------------------------------------------------------

  @Override
  public Optional<Lease> acquire(SessionId session, String holder, Duration ttl) {
    return leases.acquire(session, holder, ttl);
  }

  @Override
  public Lease renew(Lease lease, Duration ttl) {
    return leases.renew(lease, ttl);
  }

  @Override
  public void release(Lease lease) {
    leases.release(lease);
  }

  @Override
  public Optional<Lease> current(SessionId session) {
    return leases.current(session);
  }
}
