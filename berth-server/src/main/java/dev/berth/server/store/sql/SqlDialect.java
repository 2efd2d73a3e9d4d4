package dev.berth.server.store.sql;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Where the tables' SQL differs between the two engines, and why.
 *
 * <p><b>SQLite</b> runs one write transaction at a time per file ({@code BEGIN IMMEDIATE}, see
 * {@link SqliteDatabase}): whatever a write reads is already serialized with every other write, so
 * it needs no row locks, and an {@code AUTOINCREMENT} key is assigned in commit order.
 *
 * <p><b>PostgreSQL</b> runs many write transactions at once under READ COMMITTED (see {@link
 * PostgresDatabase}). A compare-and-swap {@code UPDATE ... WHERE version = ?} is still safe: a
 * second writer waits for the first one's row lock and then finds the version moved. But a write
 * that first reads something it depends on, such as the lease a fenced write checks, must lock what
 * it read until it commits ({@code FOR SHARE}, {@code FOR UPDATE}), or a takeover could commit
 * between the check and the write. And a sequence hands out numbers in the order transactions ask,
 * not the order they commit, so every append to the audit log takes one lock first: a reader (of a
 * session's log, or of the whole installation's) that resumes after the last sequence it saw then
 * never misses one committed later with a smaller number.
 */
public enum SqlDialect {
  SQLITE,
  POSTGRES;

  /** The function of two arguments that answers the greater ({@code max} is an aggregate in PG). */
  String greatest() {
    return switch (this) {
      case SQLITE -> "max";
      case POSTGRES -> "GREATEST";
    };
  }

  /**
   * The SQL expression reading a top-level text field of a JSON body column, NULL for a body that
   * does not have it, for an aggregate over what only the body keeps. It must not fail on one
   * unusual body: a corrupt record is reported when that record is read (StoreJson), not by every
   * aggregate. SQLite's {@code json_extract} behind {@code json_valid}. PostgreSQL cannot parse a
   * body with a {@code \u0000} escape (which a session name may hold) as {@code json} or {@code
   * jsonb}, so the field is matched in the text: the body is compact JSON, in which no string value
   * can hold {@code "field":"} unescaped, and the record's fields before it hold no map with keys
   * of their own, so the first match is the top-level field.
   */
  String jsonText(String column, String field) {
    return switch (this) {
      case SQLITE ->
          "(CASE WHEN json_valid("
              + column
              + ") THEN json_extract("
              + column
              + ", '$."
              + field
              + "') END)";
      case POSTGRES -> "substring(" + column + " from '\"" + field + "\":\"([A-Z_]+)\"')";
    };
  }

  /** The column that orders a table's rows by insertion (SQLite's implicit rowid). */
  String insertionOrder() {
    return switch (this) {
      case SQLITE -> "rowid";
      case POSTGRES -> "seq";
    };
  }

  /** Appended to a SELECT whose rows a write reads and depends on, but does not change. */
  String lockForShare() {
    return switch (this) {
      case SQLITE -> "";
      case POSTGRES -> " FOR SHARE";
    };
  }

  /** Appended to a SELECT whose rows a write reads and then changes. */
  String lockForUpdate() {
    return switch (this) {
      case SQLITE -> "";
      case POSTGRES -> " FOR UPDATE";
    };
  }

  /**
   * Serializes the audit appends of {@code key} until the calling transaction ends (the audit log
   * uses one key for every append, see AuditRows).
   */
  void serializeAppends(Connection c, String key) throws SQLException {
    switch (this) {
      case SQLITE -> {}
      case POSTGRES ->
          SqlDatabase.queryOne(
              c, "SELECT pg_advisory_xact_lock(hashtext(?))", rs -> true, "berth-audit:" + key);
    }
  }
}
