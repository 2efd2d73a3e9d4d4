package dev.berth.server.store.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A database the store's tables live in: a connection pool, its migrations and its two kinds of
 * work. Reads run as autocommit statements; a write runs in one transaction, committed when its
 * work returns and rolled back when it throws (the exception then propagates unchanged). What a
 * transaction guarantees beyond that differs by engine and is spelt out by {@link SqlDialect}, so
 * that the tables' SQL is written once for both. Thread-safe.
 */
public interface SqlDatabase extends AutoCloseable {

  /** Work done on a connection. */
  @FunctionalInterface
  interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** Maps the current row of a result set. */
  @FunctionalInterface
  interface RowMapper<T> {
    T map(ResultSet row) throws SQLException;
  }

  /** How this engine's SQL differs where the tables need it to. */
  SqlDialect dialect();

  /** The newest schema version this server knows, to which it migrated the database at open. */
  org.flywaydb.core.api.MigrationVersion schemaVersion();

  /** Names the database in messages, such as {@code "sqlite store /var/lib/berth/berth.db"}. */
  String describe();

  /** Runs {@code work}, which only reads, on a pooled connection in autocommit mode. */
  <T> T read(String what, SqlWork<T> work);

  /** Runs {@code work} in one transaction. */
  <T> T write(String what, SqlWork<T> work);

  /**
   * Runs {@code work} (which uses the database through other calls) while no other process sharing
   * the database runs work under the same {@code key}; what {@code work} committed is visible to
   * the next holder. An embedded database has one process, so it only runs the work.
   */
  <T> T exclusively(String what, String key, java.util.function.Supplier<T> work);

  /**
   * Claims {@code key} for this process until the returned handle is closed or the process ends, or
   * refuses at once when another process sharing the database holds it in a conflicting way: an
   * exclusive claim conflicts with any other, a shared one only with an exclusive one. For what
   * only one process at a time may do on a shared database (or only processes of one kind), however
   * long it runs. An embedded database has one process (its file is locked), so it claims nothing.
   *
   * @param refusal what the refusal says: who holds the claim, and what to do instead
   * @throws dev.berth.server.store.StoreAccessException with {@code refusal} when the claim
   *     conflicts with another process's
   */
  AutoCloseable claim(String key, boolean shared, String refusal);

  /** Closes the pool; idempotent. Calls made afterwards fail with IllegalStateException. */
  @Override
  void close();

  static int update(Connection c, String sql, @Nullable Object... args) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, args)) {
      return ps.executeUpdate();
    }
  }

  static <T> Optional<T> queryOne(
      Connection c, String sql, RowMapper<T> mapper, @Nullable Object... args) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, args);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? Optional.of(mapper.map(rs)) : Optional.empty();
    }
  }

  static <T> List<T> queryList(
      Connection c, String sql, RowMapper<T> mapper, @Nullable Object... args) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, args);
        ResultSet rs = ps.executeQuery()) {
      List<T> rows = new ArrayList<>();
      while (rs.next()) {
        rows.add(mapper.map(rs));
      }
      return rows;
    }
  }

  private static PreparedStatement prepare(Connection c, String sql, @Nullable Object... args)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    try {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      return ps;
    } catch (SQLException e) {
      ps.close();
      throw e;
    }
  }
}
