package dev.berth.server.store.sqlite;

import static dev.berth.server.store.sqlite.SqliteDatabase.queryList;
import static dev.berth.server.store.sqlite.SqliteDatabase.queryOne;
import static dev.berth.server.store.sqlite.SqliteDatabase.update;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.StaleFenceException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationState;
import dev.berth.core.session.Activity;
import dev.berth.core.session.Phase;
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
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The embedded {@link SessionStore} and {@link SessionLeases}: one SQLite file, for a single
 * control plane (or a few processes on one host sharing the file).
 *
 * <h2>Implementation notes</h2>
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
 * <p><b>Compare-and-swap.</b> A record write is {@code UPDATE ... WHERE id = ? AND version = ?};
 * when no row changed, a read in the same transaction tells {@link NotFoundException} from {@link
 * VersionConflictException}. A fenced write first compares its token with the session's row in
 * {@code session_leases}, in the same transaction. A failed write rolls back and changes nothing.
 *
 * <p><b>Last access.</b> {@code sessions.last_access} (epoch nanoseconds) is authoritative over
 * {@code activity.lastAccess} in the JSON body: {@link #touch} moves only that column (never
 * backwards, without a version bump), a compare-and-swap stores the greater of the column and the
 * written value, and every read puts the column value into the session it returns. The {@code
 * version} column is likewise authoritative over the body's copy.
 *
 * <p><b>Leases and fencing.</b> {@code session_leases} holds one row per session that was ever
 * leased: the holder, the expiry (both NULL once released) and the highest token ever issued.
 * Release clears the holder but keeps the row, so tokens only grow and are never reused. A fenced
 * write is accepted only with exactly that highest token. Expiry is judged by the injected clock,
 * never by SQLite's.
 *
 * <p><b>Paging.</b> Sessions are ordered by {@code (created_at, id)}; a page token encodes the last
 * key returned and the next page starts strictly after it, so sessions created or changed between
 * pages never make a client skip or repeat the others.
 *
 * <p><b>Failure modes.</b> A body that cannot be decoded raises {@link CorruptRecordException}
 * naming the record; an unusable database raises {@link StoreAccessException}; a call after {@link
 * #close()} raises {@link IllegalStateException}.
 *
 * <p><b>Size.</b> This class is long because it spells out the SQL of every method of both ports,
 * each one short transaction; pooling, transactions and migrations are in {@link SqliteDatabase},
 * the page token in {@link PageCursor} and the body format in {@link StoreJson}.
 */
public final class SqliteSessionStore implements SessionStore, SessionLeases, AutoCloseable {

  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private static final String SESSION_COLUMNS = "id, version, last_access, body";
  private static final String UNFINISHED_STATES =
      Arrays.stream(OperationState.values())
          .filter(s -> !s.isFinished())
          .map(s -> "'" + s.name() + "'")
          .collect(Collectors.joining(", "));

  private final SqliteDatabase db;
  private final InstantSource clock;
  private final StoreJson json = new StoreJson();

  /**
   * Sessions already parsed, by id, with the version their body was written at. A row's body
   * changes only with its version (every write bumps it; a touch changes only last_access, a
   * column), so a cached parse of the same version is the row's: a listing of 10,000 sessions then
   * reads the rows but parses only what changed, which is most of its cost otherwise.
   */
  private final com.github.benmanes.caffeine.cache.Cache<String, Parsed> parsed =
      com.github.benmanes.caffeine.cache.Caffeine.newBuilder().maximumSize(50_000).build();

  private record Parsed(long version, Session session) {}

  private SqliteSessionStore(SqliteDatabase db, InstantSource clock) {
    this.db = db;
    this.clock = clock;
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
    Session stored = session.withVersion(1);
    String body = json.writeSession(stored);
    return db.write(
        "create session " + session.id(),
        c -> {
          int inserted =
              update(
                  c,
                  "INSERT INTO sessions"
                      + " (id, tenant, phase, created_at, version, last_access, body, deleted)"
                      + " VALUES (?, ?, ?, ?, 1, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                  stored.id().value(),
                  stored.tenant().value(),
                  stored.phase().name(),
                  nanos(stored.createdAt()),
                  nanos(stored.activity().lastAccess()),
                  body,
                  stored.deleted() ? 1 : 0);
          if (inserted == 0) {
            throw new AlreadyExistsException("session " + stored.id());
          }
          return stored;
        });
  }

  @Override
  public Optional<Session> get(SessionId id) {
    return db.read(
        "read session " + id,
        c ->
            queryOne(
                c,
                "SELECT " + SESSION_COLUMNS + " FROM sessions WHERE id = ?",
                this::session,
                id.value()));
  }

  @Override
  public Page<Session> list(SessionQuery query) {
    StringBuilder sql =
        new StringBuilder("SELECT " + SESSION_COLUMNS + ", created_at FROM sessions");
    sql.append(" WHERE 1 = 1");
    List<Object> args = new ArrayList<>();
    if (query.tenant().isPresent()) {
      sql.append(" AND tenant = ?");
      args.add(query.tenant().get().value());
    }
    if (!query.phases().isEmpty()) {
      sql.append(" AND phase IN (");
      sql.append(String.join(", ", Collections.nCopies(query.phases().size(), "?"))).append(")");
      query.phases().stream().map(Phase::name).sorted().forEach(args::add);
    }
    switch (query.deleted()) {
      case INCLUDED -> {}
      case EXCLUDED -> sql.append(" AND deleted = 0");
      case ONLY -> sql.append(" AND deleted = 1");
    }
    if (query.pageToken().isPresent()) {
      PageCursor after = PageCursor.parse(query.pageToken().get());
      sql.append(" AND (created_at, id) > (?, ?)");
      args.add(after.createdAt());
      args.add(after.id());
    }
    sql.append(" ORDER BY created_at, id LIMIT ?");
    args.add(query.limit() + 1);
    List<Listed> rows =
        db.read("list sessions", c -> queryList(c, sql.toString(), this::listed, args.toArray()));
    List<Listed> items = rows.subList(0, Math.min(query.limit(), rows.size()));
    Optional<String> next =
        rows.size() > query.limit()
            ? Optional.of(items.get(items.size() - 1).cursor().token())
            : Optional.empty();
    return new Page<>(items.stream().map(Listed::session).toList(), next);
  }

  /** A listed session with its keyset position. */
  private record Listed(Session session, PageCursor cursor) {}

  private Listed listed(ResultSet rs) throws SQLException {
    Session s = session(rs);
    return new Listed(s, new PageCursor(rs.getLong("created_at"), s.id().value()));
  }

  @Override
  public Session compareAndSet(Session next, long expectedVersion) {
    String body = json.writeSession(next.withVersion(expectedVersion + 1));
    return db.write("write session " + next.id(), c -> putSession(c, next, expectedVersion, body));
  }

  @Override
  public Session compareAndSet(Session next, long expectedVersion, FencingToken fence) {
    String body = json.writeSession(next.withVersion(expectedVersion + 1));
    return db.write(
        "write session " + next.id(),
        c -> {
          requireFence(c, next.id(), fence);
          return putSession(c, next, expectedVersion, body);
        });
  }

  private Session putSession(Connection c, Session next, long expectedVersion, String body)
      throws SQLException {
    Optional<Long> lastAccess =
        queryOne(
            c,
            "UPDATE sessions SET phase = ?, version = ?, last_access = max(last_access, ?),"
                + " body = ?, deleted = ? WHERE id = ? AND version = ? RETURNING last_access",
            rs -> rs.getLong(1),
            next.phase().name(),
            expectedVersion + 1,
            nanos(next.activity().lastAccess()),
            body,
            next.deleted() ? 1 : 0,
            next.id().value(),
            expectedVersion);
    if (lastAccess.isPresent()) {
      return withColumns(next, expectedVersion + 1, lastAccess.get());
    }
    String subject = "session " + next.id();
    throw storedVersion(c, "sessions", next.id().value())
        .<RuntimeException>map(v -> new VersionConflictException(subject, expectedVersion, v))
        .orElseGet(() -> new NotFoundException(subject));
  }

  @Override
  public boolean touch(SessionId id, Instant at) {
    long nanos = nanos(at);
    return db.write(
        "touch session " + id,
        c ->
            update(
                    c,
                    "UPDATE sessions SET last_access = max(last_access, ?) WHERE id = ?",
                    nanos,
                    id.value())
                == 1);
  }

  @Override
  public SessionLeases leases() {
    return this;
  }

  private Session session(ResultSet rs) throws SQLException {
    String id = rs.getString("id");
    long version = rs.getLong("version");
    Parsed known = parsed.getIfPresent(id);
    Session s;
    if (known != null && known.version() == version) {
      s = known.session();
    } else {
      s = json.readSession(id, rs.getString("body"));
      parsed.put(id, new Parsed(version, s));
    }
    return withColumns(s, version, rs.getLong("last_access"));
  }

  private static Session withColumns(Session s, long version, long lastAccessNanos) {
    Activity a = s.activity();
    return s.withActivity(new Activity(instant(lastAccessNanos), a.keepAliveUntil(), a.busySince()))
        .withVersion(version);
  }

  // ---- operations -----------------------------------------------------------------------------

  @Override
  public Operation createOperation(Operation operation) {
    Operation stored = operation.withVersion(1);
    String body = json.writeOperation(stored);
    return db.write(
        "create operation " + operation.id(),
        c -> {
          int inserted =
              update(
                  c,
                  "INSERT INTO operations (id, session_id, state, created_at, version, body)"
                      + " VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (id) DO NOTHING",
                  stored.id().value(),
                  stored.sessionId().value(),
                  stored.state().name(),
                  nanos(stored.createdAt()),
                  body);
          return inserted == 1 ? stored : findOperation(c, stored.id()).orElseThrow();
        });
  }

  @Override
  public Optional<Operation> getOperation(OperationId id) {
    return db.read("read operation " + id, c -> findOperation(c, id));
  }

  private Optional<Operation> findOperation(Connection c, OperationId id) throws SQLException {
    return queryOne(
        c, "SELECT id, version, body FROM operations WHERE id = ?", this::operation, id.value());
  }

  @Override
  public List<Operation> listOperations(SessionId session) {
    return db.read(
        "list operations of session " + session,
        c ->
            queryList(
                c,
                "SELECT id, version, body FROM operations WHERE session_id = ?"
                    + " ORDER BY created_at, rowid",
                this::operation,
                session.value()));
  }

  @Override
  public List<Operation> unfinishedOperations() {
    return db.read(
        "list unfinished operations",
        c ->
            queryList(
                c,
                "SELECT id, version, body FROM operations WHERE state IN ("
                    + UNFINISHED_STATES
                    + ") ORDER BY created_at, rowid",
                this::operation));
  }

  @Override
  public Operation updateOperation(Operation next, long expectedVersion, FencingToken fence) {
    Operation stored = next.withVersion(expectedVersion + 1);
    String body = json.writeOperation(stored);
    String subject = "operation " + next.id();
    return db.write(
        "write " + subject,
        c -> {
          long actual =
              storedVersion(c, "operations", next.id().value())
                  .orElseThrow(() -> new NotFoundException(subject));
          requireFence(c, next.sessionId(), fence);
          int updated =
              update(
                  c,
                  "UPDATE operations SET state = ?, version = ?, body = ?"
                      + " WHERE id = ? AND version = ?",
                  stored.state().name(),
                  expectedVersion + 1,
                  body,
                  next.id().value(),
                  expectedVersion);
          if (updated == 0) {
            throw new VersionConflictException(subject, expectedVersion, actual);
          }
          return stored;
        });
  }

  private Operation operation(ResultSet rs) throws SQLException {
    return json.readOperation(rs.getString("id"), rs.getString("body"))
        .withVersion(rs.getLong("version"));
  }

  // ---- executions -----------------------------------------------------------------------------

  @Override
  public Execution createExecution(Execution execution) {
    Execution stored = execution.withVersion(1);
    String body = json.writeExecution(stored);
    return db.write(
        "create execution " + execution.id(),
        c -> {
          int inserted =
              update(
                  c,
                  "INSERT INTO executions (id, session_id, version, created_at, body)"
                      + " VALUES (?, ?, 1, ?, ?) ON CONFLICT (id) DO NOTHING",
                  stored.id().value(),
                  stored.sessionId().value(),
                  nanos(stored.submittedAt()),
                  body);
          if (inserted == 0) {
            throw new AlreadyExistsException("execution " + stored.id());
          }
          return stored;
        });
  }

  @Override
  public Optional<Execution> getExecution(ExecutionId id) {
    return db.read(
        "read execution " + id,
        c ->
            queryOne(
                c,
                "SELECT id, version, body FROM executions WHERE id = ?",
                this::execution,
                id.value()));
  }

  @Override
  public List<Execution> listExecutions(SessionId session) {
    return db.read(
        "list executions of session " + session,
        c ->
            queryList(
                c,
                "SELECT id, version, body FROM executions WHERE session_id = ?"
                    + " ORDER BY created_at, rowid",
                this::execution,
                session.value()));
  }

  @Override
  public Execution updateExecution(Execution next, long expectedVersion) {
    Execution stored = next.withVersion(expectedVersion + 1);
    String body = json.writeExecution(stored);
    String subject = "execution " + next.id();
    return db.write(
        "write " + subject,
        c -> {
          int updated =
              update(
                  c,
                  "UPDATE executions SET version = ?, body = ? WHERE id = ? AND version = ?",
                  expectedVersion + 1,
                  body,
                  next.id().value(),
                  expectedVersion);
          if (updated == 0) {
            throw storedVersion(c, "executions", next.id().value())
                .<RuntimeException>map(
                    v -> new VersionConflictException(subject, expectedVersion, v))
                .orElseGet(() -> new NotFoundException(subject));
          }
          return stored;
        });
  }

  private Execution execution(ResultSet rs) throws SQLException {
    return json.readExecution(rs.getString("id"), rs.getString("body"))
        .withVersion(rs.getLong("version"));
  }

  // ---- audit log ------------------------------------------------------------------------------

  @Override
  public AuditEvent append(AuditEvent event) {
    long at = nanos(event.at());
    long seq =
        db.write(
            "append an audit event",
            c ->
                queryOne(
                        c,
                        "INSERT INTO audit_events (session_id, at, actor, type, detail)"
                            + " VALUES (?, ?, ?, ?, ?) RETURNING seq",
                        rs -> rs.getLong(1),
                        event.sessionId().map(SessionId::value).orElse(null),
                        at,
                        event.actor(),
                        event.type(),
                        event.detail())
                    .orElseThrow());
    return event.withSequence(seq);
  }

  @Override
  public List<AuditEvent> events(SessionId session, long after, int limit) {
    if (limit < 0) {
      throw new InvalidValueException("event limit must be >= 0, was " + limit);
    }
    return db.read(
        "read the audit events of session " + session,
        c ->
            queryList(
                c,
                "SELECT seq, at, actor, type, detail FROM audit_events"
                    + " WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                rs ->
                    new AuditEvent(
                        rs.getLong("seq"),
                        Optional.of(session),
                        instant(rs.getLong("at")),
                        rs.getString("actor"),
                        rs.getString("type"),
                        rs.getString("detail")),
                session.value(),
                after,
                limit));
  }

  // ---- leases ---------------------------------------------------------------------------------

  @Override
  public Optional<Lease> acquire(SessionId session, String holder, Duration ttl) {
    return db.write(
        "acquire the lease of session " + session,
        c -> {
          Instant now = clock.instant();
          Optional<LeaseRow> row = leaseRow(c, session);
          boolean live = row.map(r -> r.isLiveAt(nanos(now))).orElse(false);
          if (live && !row.get().holder().equals(holder)) {
            return Optional.empty();
          }
          long token = live ? row.get().token() : row.map(LeaseRow::token).orElse(0L) + 1;
          Lease lease = new Lease(session, holder, new FencingToken(token), now.plus(ttl));
          update(
              c,
              "INSERT INTO session_leases (session_id, holder, token, expires_at)"
                  + " VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET"
                  + " holder = excluded.holder, token = excluded.token,"
                  + " expires_at = excluded.expires_at",
              session.value(),
              holder,
              token,
              nanos(lease.expiresAt()));
          return Optional.of(lease);
        });
  }

  @Override
  public Lease renew(Lease lease, Duration ttl) {
    SessionId session = lease.sessionId();
    return db.write(
        "renew the lease of session " + session,
        c -> {
          Instant now = clock.instant();
          Optional<LeaseRow> row = leaseRow(c, session);
          boolean current =
              row.map(r -> r.isLiveAt(nanos(now)) && r.token() == lease.token().value())
                  .orElse(false);
          if (!current) {
            throw new StaleFenceException(
                "lease of session " + session,
                lease.token().value(),
                row.map(LeaseRow::token).orElse(0L));
          }
          Lease renewed = new Lease(session, lease.holder(), lease.token(), now.plus(ttl));
          update(
              c,
              "UPDATE session_leases SET expires_at = ? WHERE session_id = ?",
              nanos(renewed.expiresAt()),
              session.value());
          return renewed;
        });
  }

  @Override
  public void release(Lease lease) {
    db.write(
        "release the lease of session " + lease.sessionId(),
        c ->
            update(
                c,
                "UPDATE session_leases SET holder = NULL, expires_at = NULL"
                    + " WHERE session_id = ? AND token = ?",
                lease.sessionId().value(),
                lease.token().value()));
  }

  @Override
  public Optional<Lease> current(SessionId session) {
    long now = nanos(clock.instant());
    return db.read(
        "read the lease of session " + session,
        c ->
            leaseRow(c, session)
                .filter(r -> r.isLiveAt(now))
                .map(
                    r ->
                        new Lease(
                            session,
                            r.holder(),
                            new FencingToken(r.token()),
                            instant(r.expiresAt()))));
  }

  private static Optional<LeaseRow> leaseRow(Connection c, SessionId session) throws SQLException {
    return queryOne(
        c,
        "SELECT holder, token, expires_at FROM session_leases WHERE session_id = ?",
        rs -> new LeaseRow(rs.getString("holder"), rs.getLong("token"), rs.getLong("expires_at")),
        session.value());
  }

  /** Rejects a write fenced with anything but the session's highest token. */
  private static void requireFence(Connection c, SessionId session, FencingToken fence)
      throws SQLException {
    long current = leaseRow(c, session).map(LeaseRow::token).orElse(0L);
    if (fence.value() != current) {
      throw new StaleFenceException("session " + session, fence.value(), current);
    }
  }

  /** A {@code session_leases} row; {@code holder} is null once released. */
  private record LeaseRow(String holder, long token, long expiresAt) {
    boolean isLiveAt(long nowNanos) {
      return holder != null && expiresAt > nowNanos;
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static Optional<Long> storedVersion(Connection c, String table, String id)
      throws SQLException {
    return queryOne(c, "SELECT version FROM " + table + " WHERE id = ?", rs -> rs.getLong(1), id);
  }

  /** Epoch nanoseconds: exact and sortable, for instants from 1677-09-21 to 2262-04-11. */
  static long nanos(Instant t) {
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), NANOS_PER_SECOND), t.getNano());
    } catch (ArithmeticException e) {
      throw new InvalidValueException(
          "instant " + t + " is outside what the store can hold (1677-09-21 to 2262-04-11)");
    }
  }

  static Instant instant(long epochNanos) {
    return Instant.ofEpochSecond(
        Math.floorDiv(epochNanos, NANOS_PER_SECOND), Math.floorMod(epochNanos, NANOS_PER_SECOND));
  }
}
