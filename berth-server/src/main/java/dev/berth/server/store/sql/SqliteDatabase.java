package dev.berth.server.store.sql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.berth.core.error.InvalidValueException;
import dev.berth.protocol.files.PrivateFiles;
import dev.berth.server.store.StoreAccessException;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationVersion;

/**
 * One SQLite file: its connection pool, its Flyway migrations and its two kinds of transaction.
 * Reads run as single autocommit statements on any pooled connection; writes are serialized by an
 * in-process lock and run in {@code BEGIN IMMEDIATE} transactions. See the implementation notes of
 * {@link SqlSessionStore} for why. Thread-safe.
 *
 * <p>The file is private to the server's user (0600, in a directory created 0700). SQLite creates
 * its files with a mode of its own (0644 less the umask), except that it gives the {@code -wal} and
 * {@code -shm} files the mode of the database file; so the database file is created empty (which
 * SQLite takes for a new database) with mode 0600 before SQLite opens it, and the three files are
 * set to 0600 once more after the open, in case one existed from before.
 */
final class SqliteDatabase extends PooledSqlDatabase {

  /** How long a write waits for another process's write lock before failing. */
  static final int BUSY_TIMEOUT_MILLIS = 10_000;

  /** The Flyway location of the schema. */
  static final String MIGRATIONS = "classpath:db/migration/sqlite";

  private static final int POOL_SIZE = 4;

  private final Path file;
  private final ReentrantLock writer = new ReentrantLock();

  private SqliteDatabase(Path file, HikariDataSource pool, MigrationVersion schemaVersion) {
    super("sqlite store " + file, pool, schemaVersion);
    this.file = file;
  }

  /**
   * Opens (creating if needed) the database at {@code dbFile} and migrates it to the newest schema.
   *
   * @throws StoreAccessException when the file cannot be created, opened or migrated
   */
  static SqliteDatabase open(Path dbFile) {
    Path file = dbFile.toAbsolutePath().normalize();
    if (file.toString().contains("?")) {
      throw new InvalidValueException(
          "sqlite store path must not contain '?' (it starts the JDBC URL's parameters), was "
              + file);
    }
    createPrivately(file);
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(poolConfig(file));
    } catch (RuntimeException e) {
      throw new StoreAccessException("sqlite store " + file + " could not be opened: " + e, e);
    }
    try {
      MigrationVersion schemaVersion = migrate(pool, file);
      restrictModes(file);
      return new SqliteDatabase(file, pool, schemaVersion);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  Path file() {
    return file;
  }

  @Override
  public SqlDialect dialect() {
    return SqlDialect.SQLITE;
  }

  /** Runs {@code work} in one {@code BEGIN IMMEDIATE} transaction. */
  @Override
  public <T> T write(String what, SqlWork<T> work) {
    requireOpen();
    writer.lock();
    try (Connection c = connection()) {
      return inTransaction(c, work);
    } catch (SQLException e) {
      throw failure(what, e);
    } finally {
      writer.unlock();
    }
  }

  /** One process per file (the server's data-directory lock): nothing to exclude. */
  @Override
  public <T> T exclusively(String what, String key, java.util.function.Supplier<T> work) {
    requireOpen();
    return work.get();
  }

  @Override
  public AutoCloseable claim(String key, boolean shared, String refusal) {
    requireOpen();
    return () -> {};
  }

  @Override
  String whatToCheck() {
    return "check that the file is readable, writable and not held by another program";
  }

  @Override
  void begin(Connection c) throws SQLException {
    execute(c, "BEGIN IMMEDIATE");
  }

  @Override
  void commit(Connection c) throws SQLException {
    execute(c, "COMMIT");
  }

  @Override
  void rollback(Connection c) throws SQLException {
    execute(c, "ROLLBACK");
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static void createPrivately(Path file) {
    Path parent = file.getParent();
    try {
      if (parent != null) {
        PrivateFiles.createDirectories(parent);
      }
      PrivateFiles.createFileIfMissing(file);
    } catch (IOException e) {
      throw new StoreAccessException(
          "sqlite store "
              + file
              + " could not be created in "
              + parent
              + ": "
              + e
              + "; check that the directory is writable",
          e);
    }
  }

  private static void restrictModes(Path file) {
    for (String suffix : List.of("", "-wal", "-shm")) {
      Path each = file.resolveSibling(file.getFileName() + suffix);
      try {
        PrivateFiles.restrict(each);
      } catch (IOException e) {
        throw new StoreAccessException(
            "sqlite store "
                + file
                + " could not make "
                + each
                + " private (mode 0600): "
                + e
                + "; check that the file belongs to the server's user",
            e);
      }
    }
  }

  private static HikariConfig poolConfig(Path file) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("berth-sqlite");
    config.setJdbcUrl(
        "jdbc:sqlite:"
            + file
            + "?journal_mode=WAL&synchronous=NORMAL&foreign_keys=true&busy_timeout="
            + BUSY_TIMEOUT_MILLIS);
    config.setMaximumPoolSize(POOL_SIZE);
    config.setMinimumIdle(1);
    config.setAutoCommit(true);
    return config;
  }

  private static MigrationVersion migrate(HikariDataSource pool, Path file) {
    try {
      return SchemaMigrations.migrate(pool, MIGRATIONS);
    } catch (FlywayException e) {
      throw new StoreAccessException(
          "sqlite store "
              + file
              + " could not be migrated to the current schema: "
              + e.getMessage(),
          e);
    }
  }
}
