package dev.berth.server.store.sql;

import dev.berth.core.session.Phase;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.Lease;
import dev.berth.core.store.SessionLeases;
import dev.berth.core.store.SessionStore;
import dev.berth.server.store.StoreAccessException;
import dev.berth.store.ControlPlaneStore;
import dev.berth.store.CorruptRecordException;
import dev.berth.store.RecordSessionStore;
import dev.berth.store.StoreJson;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@link SessionStore} and {@link SessionLeases} over SQL: the embedded default in one SQLite
 * file, for a single control plane (or a few processes on one host sharing the file), or a
 * PostgreSQL database shared by any number of control-plane replicas. The tables and their SQL are
 * the same for both; {@link SqlDialect} holds the few differences and says why each is safe.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Layout.</b> Each table has its class, which spells out its SQL: {@link SessionRows}, {@link
 * OperationRows}, {@link ExecutionRows}, {@link AuditRows} and {@link LeaseRows}; the three tables
 * of versioned records share their row shape and compare-and-swap in {@link VersionedRows}. This
 * class only delegates (the session store's part through {@link RecordSessionStore}), so that the
 * ports' methods are read in one place and the SQL of one table in another. Every method is one
 * transaction (or one autocommit read) run by the table class; a fenced write checks the lease
 * through {@link LeaseRows} inside the write's transaction. Pooling, transactions and migrations
 * are in {@link SqliteDatabase} and {@link PostgresDatabase}, the page token in {@link
 * dev.berth.store.PageCursor}, the body format in {@link StoreJson} and the instant columns in
 * {@link EpochNanos}.
 *
 * <p><b>Concurrency, SQLite.</b> SQLite allows one writer at a time per file. Every write
 * (including {@link #touch}, lease changes and audit appends) takes an in-process {@link
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
 * <p><b>Concurrency, PostgreSQL.</b> Writes run concurrently in READ COMMITTED transactions ({@link
 * PostgresDatabase}); a write locks the rows it depends on but does not change (the lease a fenced
 * write checks) until it commits, and the audit appends of one session are serialized, as {@link
 * SqlDialect} explains.
 *
 * <p><b>Failure modes.</b> A body that cannot be decoded raises {@link CorruptRecordException}
 * naming the record; an unusable database raises {@link StoreAccessException}; a call after {@link
 * #close()} raises {@link IllegalStateException}.
 */
public final class SqlSessionStore extends RecordSessionStore
    implements SessionLeases, ControlPlaneStore {

  /** What an operator does about a row that cannot be read. */
  static final String REPAIR =
      "restore the record from a backup, or repair it and check it with a build that knows its"
          + " format";

  private final SqlDatabase db;
  private final LeaseRows leases;
  private final AuditRows audit;

  private SqlSessionStore(SqlDatabase db, InstantSource clock) {
    this(db, new LeaseRows(db, clock), new AuditRows(db));
  }

  private SqlSessionStore(SqlDatabase db, LeaseRows leases, AuditRows audit) {
    super(tables(db, leases, audit));
    this.db = db;
    this.leases = leases;
    this.audit = audit;
  }

  private static Parts tables(SqlDatabase db, LeaseRows leases, AuditRows audit) {
    StoreJson json = new StoreJson(REPAIR);
    return new Parts(
        new SessionRows(db, json, leases),
        new OperationRows(db, json, leases),
        new ExecutionRows(db, json),
        audit);
  }

  /**
   * Opens the embedded store in the SQLite file {@code dbFile}, creating the file and its parent
   * directories when missing and migrating the schema to the newest version.
   *
   * @param clock judges lease expiry
   * @throws StoreAccessException when the file cannot be created, opened or migrated
   */
  public static SqlSessionStore openSqlite(Path dbFile, InstantSource clock) {
    return openSqlite(dbFile, clock, SqlTimings.NONE);
  }

  /** As {@link #openSqlite(Path, InstantSource)}, telling {@code timings} of each unit of work. */
  public static SqlSessionStore openSqlite(Path dbFile, InstantSource clock, SqlTimings timings) {
    Objects.requireNonNull(dbFile, "dbFile");
    Objects.requireNonNull(clock, "clock");
    return new SqlSessionStore(timed(SqliteDatabase.open(dbFile), timings), clock);
  }

  /**
   * Opens the store in the PostgreSQL database at {@code location}, migrating its schema to the
   * newest version. Any number of processes may share it.
   *
   * @param clock judges lease expiry; the processes sharing the database must agree on the time
   * @throws StoreAccessException when the database cannot be reached or migrated
   */
  public static SqlSessionStore openPostgres(PostgresLocation location, InstantSource clock) {
    return openPostgres(location, clock, SqlTimings.NONE);
  }

  /**
   * As {@link #openPostgres(PostgresLocation, InstantSource)}, telling {@code timings} of each unit
   * of work.
   */
  public static SqlSessionStore openPostgres(
      PostgresLocation location, InstantSource clock, SqlTimings timings) {
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(clock, "clock");
    return new SqlSessionStore(timed(PostgresDatabase.open(location), timings), clock);
  }

  private static SqlDatabase timed(SqlDatabase db, SqlTimings timings) {
    return timings == SqlTimings.NONE ? db : new TimedSqlDatabase(db, timings);
  }

  /**
   * The installation's id kept in the database: the one the first process to ask stored, or {@code
   * minted} when none was. Processes starting at once agree (the insert of one of them wins).
   */
  public String installation(java.util.function.Supplier<String> minted) {
    String candidate = Objects.requireNonNull(minted.get(), "minted");
    return db.write(
        "read or record the installation id",
        c -> {
          SqlDatabase.update(
              c,
              "INSERT INTO installation(singleton, id) VALUES (1, ?) ON CONFLICT DO NOTHING",
              candidate);
          return SqlDatabase.queryOne(
                  c, "SELECT id FROM installation WHERE singleton = 1", rs -> rs.getString(1))
              .orElseThrow();
        });
  }

  /** Names the database in messages, without credentials. */
  @Override
  public String describe() {
    return db.describe();
  }

  /**
   * Proves the database answers now (a trivial query through the pool); for readiness.
   *
   * @throws RuntimeException naming the database when it does not
   */
  @Override
  public void checkReachable() {
    db.read("check that the store answers", c -> SqlDatabase.queryOne(c, "SELECT 1", r -> 1));
  }

  /**
   * Checks that the store's schema is the one this server migrated it to: not migrated further by a
   * newer release sharing it, nor set back by a restored backup.
   *
   * @throws IllegalStateException naming both versions and what to do
   */
  @Override
  public void checkMigrated() {
    db.read(
        "check the store's schema version",
        c -> {
          SchemaMigrations.check(c, db.schemaVersion(), db.describe());
          return 0;
        });
  }

  /**
   * How many sessions (not deleted) are in each phase, for the metrics: one grouped read over the
   * phase index, however many sessions there are.
   */
  @Override
  public Map<Phase, Long> countByPhase() {
    Map<Phase, Long> counts = new EnumMap<>(Phase.class);
    db.read(
        "count the sessions by phase",
        c ->
            SqlDatabase.queryList(
                c,
                "SELECT phase, COUNT(*) FROM sessions WHERE deleted = 0 GROUP BY phase",
                r -> counts.put(Phase.valueOf(r.getString(1)), r.getLong(2))));
    return counts;
  }

  /**
   * How many sessions (not deleted) hold each kind of reservation, in one query: the reservation is
   * kept only in the body, whose field the dialect reads. A body that names no reservation this
   * server knows (corrupt, or written by a newer release) is left out of the counts, not an error:
   * reading that session reports it.
   */
  @Override
  public Map<Reservation, Long> countByReservation() {
    Map<Reservation, Long> counts = new EnumMap<>(Reservation.class);
    String field = db.dialect().jsonText("body", "reservation");
    db.read(
        "count the sessions by reservation",
        c ->
            SqlDatabase.queryList(
                c,
                "SELECT " + field + ", COUNT(*) FROM sessions WHERE deleted = 0 GROUP BY " + field,
                r -> {
                  Optional<Reservation> known = reservation(r.getString(1));
                  if (known.isPresent()) {
                    counts.put(known.get(), r.getLong(2));
                  }
                  return 0;
                }));
    return counts;
  }

  private static Optional<Reservation> reservation(@Nullable String name) {
    return Arrays.stream(Reservation.values()).filter(r -> r.name().equals(name)).findFirst();
  }

  /** The database, shared with {@link SqlTenantDirectory}; this store owns and closes it. */
  SqlDatabase database() {
    return db;
  }

  /**
   * Claims {@code key} on the store's database for this process, as {@link SqlDatabase#claim} does:
   * held until the handle is closed or the process ends.
   */
  public AutoCloseable claim(String key, boolean shared, String refusal) {
    return db.claim(key, shared, refusal);
  }

  /** Closes the connection pool; idempotent. */
  @Override
  public void close() {
    db.close();
  }

  @Override
  public SessionLeases leases() {
    return this;
  }

  // ---- audit log ------------------------------------------------------------------------------

  @Override
  public List<AuditEvent> allEvents(long after, int limit) {
    return audit.allEvents(after, limit);
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
