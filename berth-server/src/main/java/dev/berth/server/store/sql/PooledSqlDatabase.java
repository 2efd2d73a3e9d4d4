package dev.berth.server.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.berth.server.store.StoreAccessException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.flywaydb.core.api.MigrationVersion;

/**
 * What the two engines' databases share: a connection pool migrated at open, reads as autocommit
 * work on a pooled connection, the shape of a transaction (begun, committed when the work returns,
 * rolled back when it throws, the exception then propagating unchanged), and a closed database
 * refusing work. How a transaction begins and ends, and what a write does around it, is each
 * engine's ({@link SqliteDatabase}, {@link PostgresDatabase}). Thread-safe.
 */
abstract sealed class PooledSqlDatabase implements SqlDatabase
    permits SqliteDatabase, PostgresDatabase {

  private final String name;
  private final HikariDataSource pool;
  private final MigrationVersion schemaVersion;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param name names the database in messages, such as {@code "sqlite store <file>"}
   */
  PooledSqlDatabase(String name, HikariDataSource pool, MigrationVersion schemaVersion) {
    this.name = name;
    this.pool = pool;
    this.schemaVersion = schemaVersion;
  }

  @Override
  public final MigrationVersion schemaVersion() {
    return schemaVersion;
  }

  @Override
  public final String describe() {
    return name;
  }

  @Override
  public final <T> T read(String what, SqlWork<T> work) {
    requireOpen();
    try (Connection c = pool.getConnection()) {
      return work.run(c);
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  @Override
  public final void close() {
    if (closed.compareAndSet(false, true)) {
      closePools();
    }
  }

  /** Closes the pool, once; an engine with more pools closes them too. */
  void closePools() {
    pool.close();
  }

  /** A connection of the pool, for a write. */
  final Connection connection() throws SQLException {
    return pool.getConnection();
  }

  final void requireOpen() {
    if (closed.get()) {
      throw new IllegalStateException(name + " is closed; open it again");
    }
  }

  /** The failure of {@code what}, with what to check on this engine. */
  final StoreAccessException failure(String what, SQLException e) {
    return new StoreAccessException(
        name + " could not " + what + ": " + e.getMessage() + "; " + whatToCheck(), e);
  }

  /** What an operator checks when the database fails, such as who may write it. */
  abstract String whatToCheck();

  /** Runs {@code work} on {@code c} in one transaction. */
  final <T> T inTransaction(Connection c, SqlWork<T> work) throws SQLException {
    begin(c);
    try {
      T result = work.run(c);
      commit(c);
      return result;
    } catch (Throwable t) {
      rollback(c, t);
      throw t;
    } finally {
      end(c);
    }
  }

  abstract void begin(Connection c) throws SQLException;

  abstract void commit(Connection c) throws SQLException;

  abstract void rollback(Connection c) throws SQLException;

  /** What follows every transaction on {@code c}, committed or not; nothing by default. */
  void end(Connection c) {}

  private void rollback(Connection c, Throwable cause) {
    try {
      rollback(c);
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }
}
