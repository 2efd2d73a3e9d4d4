package dev.berth.server.store.sql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.berth.server.store.StoreAccessException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Set;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationVersion;

/**
 * A PostgreSQL database shared by any number of control-plane processes: its connection pool, its
 * Flyway migrations (from {@code db/migration/postgres}) and its transactions.
 *
 * <p>Writes run in READ COMMITTED transactions, PostgreSQL's default, concurrently; {@link
 * SqlDialect} says what the tables' SQL does so that this is as safe as SQLite's one writer at a
 * time. A transaction PostgreSQL aborted to break a deadlock, or for a serialization failure, is
 * run again from the start (a few times): it changed nothing, and its work reads again whatever it
 * depends on. Migrations are safe to run from several processes starting at once: Flyway holds a
 * PostgreSQL advisory lock while it migrates.
 */
final class PostgresDatabase extends PooledSqlDatabase {

  /** The Flyway location of the schema. */
  static final String MIGRATIONS = "classpath:db/migration/postgres";

  private static final int POOL_SIZE = 8;
  private static final int ATTEMPTS = 5;

  /** serialization_failure and deadlock_detected: the transaction may simply be run again. */
  private static final Set<String> RETRYABLE = Set.of("40001", "40P01");

  /**
   * Connections that hold an {@link #exclusively} lock while its work runs on the work pool: apart,
   * so that holders waiting for work connections can never take the last of them.
   */
  private static final int LOCK_POOL_SIZE = 2;

  /** How long {@link #exclusively} waits for another process's holder. */
  private static final String LOCK_TIMEOUT = "10s";

  private final PostgresLocation location;
  private final HikariDataSource lockPool;

  private PostgresDatabase(
      PostgresLocation location,
      HikariDataSource pool,
      HikariDataSource lockPool,
      MigrationVersion schemaVersion) {
    super("postgres store " + location, pool, schemaVersion);
    this.location = location;
    this.lockPool = lockPool;
  }

  /**
   * Connects to the database at {@code location} and migrates it to the newest schema.
   *
   * @throws StoreAccessException when it cannot be reached or migrated
   */
  static PostgresDatabase open(PostgresLocation location) {
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(poolConfig(location, "berth-postgres", POOL_SIZE));
    } catch (RuntimeException e) {
      throw new StoreAccessException(
          "postgres store "
              + location
              + " could not be reached: "
              + rootMessage(e)
              + "; check the host, port, database, user and password, and that the server"
              + " accepts connections from here",
          e);
    }
    try {
      MigrationVersion schemaVersion = migrate(pool, location);
      return new PostgresDatabase(
          location,
          pool,
          new HikariDataSource(poolConfig(location, "berth-locks", LOCK_POOL_SIZE)),
          schemaVersion);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  @Override
  public SqlDialect dialect() {
    return SqlDialect.POSTGRES;
  }

  @Override
  public <T> T write(String what, SqlWork<T> work) {
    requireOpen();
    for (int attempt = 1; ; attempt++) {
      try (Connection c = connection()) {
        return inTransaction(c, work);
      } catch (SQLException e) {
        if (attempt == ATTEMPTS || !RETRYABLE.contains(e.getSQLState())) {
          throw failure(what, e);
        }
      }
    }
  }

  /**
   * A transaction-scoped advisory lock on {@code key}, held on a connection of its own while the
   * work runs on others: committing releases it, and so does a broken connection (PostgreSQL ends
   * the transaction), so a process that dies holding it blocks no one. The two-key form keeps these
   * locks apart from the single-key ones the audit appends take.
   */
  @Override
  public <T> T exclusively(String what, String key, java.util.function.Supplier<T> work) {
    requireOpen();
    try (Connection c = lockPool.getConnection()) {
      return inTransaction(
          c,
          held -> {
            SqlDatabase.update(held, "SET LOCAL lock_timeout = '" + LOCK_TIMEOUT + "'");
            SqlDatabase.queryOne(
                held, "SELECT pg_advisory_xact_lock(1, hashtext(?))", rs -> true, key);
            return work.get();
          });
    } catch (SQLException e) {
      if ("55P03".equals(e.getSQLState())) {
        throw new StoreAccessException(
            describe()
                + " could not "
                + what
                + ": another control plane held the lock on "
                + key
                + " for longer than "
                + LOCK_TIMEOUT
                + "; try again",
            e);
      }
      throw failure(what, e);
    }
  }

  /**
   * A session-level advisory lock on a connection of its own, outside the pools: PostgreSQL keeps
   * it while that connection lives, and drops it when the holder closes it or dies (its socket is
   * closed), so a killed process never leaves a claim behind. The key space (2, …) is apart from
   * {@link #exclusively}'s.
   */
  @Override
  public AutoCloseable claim(String key, boolean shared, String refusal) {
    requireOpen();
    Connection held;
    try {
      java.util.Properties properties = new java.util.Properties();
      properties.setProperty("user", location.user());
      location.password().ifPresent(p -> properties.setProperty("password", p));
      // An idle connection a firewall forgets would drop the claim unnoticed; keep-alives stop
      // that, and the application name tells an operator in pg_stat_activity (and a refused
      // claimant) who holds it.
      properties.setProperty("tcpKeepAlive", "true");
      properties.setProperty("ApplicationName", applicationName(key));
      held = DriverManager.getConnection(location.jdbcUrl(), properties);
    } catch (SQLException e) {
      throw failure("claim " + key, e);
    }
    try {
      String lock = shared ? "pg_try_advisory_lock_shared" : "pg_try_advisory_lock";
      boolean claimed =
          SqlDatabase.queryOne(
                  held, "SELECT " + lock + "(2, hashtext(?))", rs -> rs.getBoolean(1), key)
              .orElse(false);
      if (!claimed) {
        throw new StoreAccessException(describe() + ": " + refusal + holderOf(held, key));
      }
      return held;
    } catch (SQLException | RuntimeException e) {
      closeQuietly(held, e);
      if (e instanceof RuntimeException r) {
        throw r;
      }
      throw failure("claim " + key, (SQLException) e);
    }
  }

  /**
   * What a claim's connection is called: the key, and the host and process that hold it. PostgreSQL
   * keeps the first 63 bytes.
   */
  static String applicationName(String key) {
    String name =
        "berth claim " + key + " by " + hostName() + " pid " + ProcessHandle.current().pid();
    return name.length() > 63 ? name.substring(0, 63) : name;
  }

  /**
   * Who holds the claim {@code key} (an advisory lock of the form {@code (2, hashtext(key))}, which
   * {@code pg_locks} shows as class id 2 and object id the hash, sub-id 2), as {@code " (held by
   * …)"}; empty when the database does not say (the holder ended meanwhile, or this user may not
   * see other sessions).
   */
  private static String holderOf(Connection c, String key) {
    try {
      return SqlDatabase.queryOne(
              c,
              "SELECT a.application_name, a.client_addr::text, a.backend_start"
                  + " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                  + " WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 2"
                  + " AND l.objid = hashtext(?)::oid AND l.objsubid = 2 LIMIT 1",
              rs ->
                  " (held by \""
                      + rs.getString(1)
                      + "\""
                      + (rs.getString(2) == null ? "" : " from " + rs.getString(2))
                      + " since "
                      + rs.getTimestamp(3).toInstant()
                      + ")",
              key)
          .orElse("");
    } catch (SQLException | RuntimeException e) {
      return "";
    }
  }

  private static String hostName() {
    String fromEnvironment = System.getenv("HOSTNAME");
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      return fromEnvironment;
    }
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "an unknown host";
    }
  }

  private static void closeQuietly(Connection c, Throwable cause) {
    try {
      c.close();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  @Override
  void closePools() {
    lockPool.close();
    super.closePools();
  }

  @Override
  String whatToCheck() {
    return "check that the server is up and that user "
        + location.user()
        + " may read and write the database";
  }

  @Override
  void begin(Connection c) throws SQLException {
    c.setAutoCommit(false);
  }

  @Override
  void commit(Connection c) throws SQLException {
    c.commit();
  }

  @Override
  void rollback(Connection c) throws SQLException {
    c.rollback();
  }

  /**
   * Resetting a broken connection throws too; the work's own exception, if any, is the one that
   * says what went wrong, so this one never replaces it (the pool discards the connection).
   */
  @Override
  void end(Connection c) {
    try {
      c.setAutoCommit(true);
    } catch (SQLException ignored) {
      // the pool evicts a broken connection on its own
    }
  }

  private static HikariConfig poolConfig(PostgresLocation location, String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(location.jdbcUrl());
    config.setUsername(location.user());
    location.password().ifPresent(config::setPassword);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(1);
    config.setAutoCommit(true);
    // A store that cannot be reached fails the start within seconds, not Hikari's 30.
    config.setConnectionTimeout(10_000);
    config.setInitializationFailTimeout(10_000);
    return config;
  }

  private static MigrationVersion migrate(HikariDataSource pool, PostgresLocation location) {
    try {
      return SchemaMigrations.migrate(pool, MIGRATIONS);
    } catch (FlywayException e) {
      throw new StoreAccessException(
          "postgres store "
              + location
              + " could not be migrated to the current schema: "
              + e.getMessage()
              + "; check that user "
              + location.user()
              + " may create tables in the database",
          e);
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return String.valueOf(root.getMessage());
  }
}
