package dev.berth.server.store.sql;

import static dev.berth.server.store.sql.SqlDatabase.queryList;
import static dev.berth.server.store.sql.SqlDatabase.queryOne;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.VersionConflictException;
import dev.berth.server.store.sql.RecordBody.Versioned;
import dev.berth.server.store.sql.SqlDatabase.RowMapper;
import dev.berth.store.StoreJson;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The row shape and the compare-and-swap shared by the tables of versioned records ({@code
 * sessions}, {@code operations}, {@code executions}): an {@code id} primary key, a {@code version}
 * column, the record as a {@link StoreJson} {@code body} (see {@link RecordBody}), and a few
 * columns copied out of the body for filtering and ordering. The {@code version} column is
 * authoritative over the body's copy.
 *
 * <p>A record write is {@code UPDATE ... WHERE id = ? AND version = ?}; when no row changed, a read
 * in the same transaction tells {@link NotFoundException} from {@link VersionConflictException}.
 * Every create and update is one {@link SqlDatabase#write}, whose {@code BEGIN IMMEDIATE} makes
 * that read, and any {@link Precondition} such as a fence check, part of one serialized
 * transaction; a failed write rolls back and changes nothing. Bodies are encoded before the
 * transaction begins, so that no write holds the write lock while JSON is written. Reads are single
 * statements in autocommit.
 *
 * @param <T> the record type
 */
final class VersionedRows<T> {

  /**
   * A column beside {@code id}, {@code version} and {@code body}: its value and how an update
   * assigns it.
   */
  record Column(String name, Object value, boolean neverBackwards) {
    static Column of(String name, Object value) {
      return new Column(name, value, false);
    }

    /** A column that an update never moves backwards (it keeps the greater value). */
    static Column atLeast(String name, long value) {
      return new Column(name, value, true);
    }

    /** How an update assigns the column, in {@code dialect}. */
    String assignment(SqlDialect dialect) {
      return neverBackwards
          ? name + " = " + dialect.greatest() + "(" + name + ", ?)"
          : name + " = ?";
    }
  }

  private final SqlDatabase db;
  private final String table;
  private final String kind;
  private final RecordBody<T> body;
  private final String selected;
  private final RowMapper<T> reader;

  /**
   * The rows of a table whose reads select {@code id, version, body}.
   *
   * @param kind names a record in messages ({@code "operation"})
   */
  VersionedRows(SqlDatabase db, String table, String kind, RecordBody<T> body) {
    this(db, table, kind, body, "id, version, body", body::read);
  }

  /**
   * @param selected the columns every read selects, at least {@code id, version, body}
   * @param reader maps a row of {@code selected} to its record
   */
  VersionedRows(
      SqlDatabase db,
      String table,
      String kind,
      RecordBody<T> body,
      String selected,
      RowMapper<T> reader) {
    this.db = db;
    this.table = table;
    this.kind = kind;
    this.body = body;
    this.selected = selected;
    this.reader = reader;
  }

  /** {@code record} at {@code version}, with the body to store for it. */
  Versioned<T> at(T record, long version) {
    return body.at(record, version);
  }

  /** What messages call the record of {@code id}, such as {@code "session s-1"}. */
  String subject(String id) {
    return kind + " " + id;
  }

  /** The record of {@code id}, read in autocommit. */
  Optional<T> get(String id) {
    return db.read("read " + subject(id), c -> find(c, id));
  }

  Optional<T> find(Connection c, String id) throws SQLException {
    return queryOne(c, "SELECT " + selected + " FROM " + table + " WHERE id = ?", reader, id);
  }

  /** The records {@code filter} (a WHERE condition, then ORDER BY and LIMIT) selects. */
  List<T> list(String what, String filter, Object... args) {
    return list(what, filter, reader, args);
  }

  /** As {@link #list(String, String, Object...)}, each row mapped by {@code mapper}. */
  <R> List<R> list(String what, String filter, RowMapper<R> mapper, Object... args) {
    String sql = "SELECT " + selected + " FROM " + table + " WHERE " + filter;
    return db.read(what, c -> queryList(c, sql, mapper, args));
  }

  /** The records of a session, oldest first, for the tables with a {@code session_id} column. */
  List<T> ofSession(String session) {
    return list(
        "list " + table + " of session " + session,
        "session_id = ? ORDER BY created_at, " + db.dialect().insertionOrder(),
        session);
  }

  /** What a create does when the id is taken. */
  enum IfTaken {
    /** Fails with {@link AlreadyExistsException}. */
    FAIL,
    /** Answers the stored record, read in the same transaction, and changes nothing. */
    KEEP_EXISTING
  }

  /**
   * Stores {@code record} at version 1, with {@code columns} beside its body, in one transaction.
   *
   * @return the record as stored (with {@link IfTaken#KEEP_EXISTING}, the one stored before)
   * @throws AlreadyExistsException when the id is taken and {@code ifTaken} is {@link IfTaken#FAIL}
   */
  T create(String id, T record, List<Column> columns, IfTaken ifTaken) {
    Versioned<T> stored = at(record, 1);
    return db.write(
        "create " + subject(id),
        c -> {
          if (insert(c, id, stored, columns)) {
            return stored.value();
          }
          if (ifTaken == IfTaken.KEEP_EXISTING) {
            return find(c, id).orElseThrow();
          }
          throw new AlreadyExistsException(subject(id));
        });
  }

  /** Inserts {@code stored} at version 1 unless its id is taken; whether it was inserted. */
  private boolean insert(Connection c, String id, Versioned<T> stored, List<Column> columns)
      throws SQLException {
    List<String> names = new ArrayList<>(List.of("id", "version", "body"));
    List<Object> args = new ArrayList<>(List.of(id, 1L, stored.body()));
    for (Column col : columns) {
      names.add(col.name());
      args.add(col.value());
    }
    String sql =
        "INSERT INTO "
            + table
            + " ("
            + String.join(", ", names)
            + ") VALUES ("
            + String.join(", ", Collections.nCopies(names.size(), "?"))
            + ") ON CONFLICT (id) DO NOTHING";
    return SqlDatabase.update(c, sql, args.toArray()) == 1;
  }

  /** What a write checks in its transaction before its compare-and-swap, such as a fence. */
  @FunctionalInterface
  interface Precondition {
    Precondition NONE = c -> {};

    void check(Connection c) throws SQLException;
  }

  /**
   * Replaces the record of {@code id} with {@code next} in one transaction: {@code before}, then
   * the compare-and-swap.
   *
   * @return {@code next} as stored, at {@code expectedVersion + 1}
   */
  T update(String id, T next, long expectedVersion, List<Column> columns, Precondition before) {
    Versioned<T> stored = at(next, expectedVersion + 1);
    return db.write(
        "write " + subject(id),
        c -> {
          before.check(c);
          compareAndSet(c, id, expectedVersion, stored, columns, "version", rs -> rs.getLong(1));
          return stored.value();
        });
  }

  /**
   * Replaces the row of {@code id} with {@code stored} (at {@code expectedVersion + 1}) if it still
   * holds {@code expectedVersion}; {@code c} is the write's transaction.
   *
   * @return {@code returning} (a RETURNING clause) of the changed row
   * @throws VersionConflictException when the stored version differs
   * @throws NotFoundException when there is no such row
   */
  <R> R compareAndSet(
      Connection c,
      String id,
      long expectedVersion,
      Versioned<T> stored,
      List<Column> columns,
      String returning,
      RowMapper<R> mapper)
      throws SQLException {
    StringBuilder sql = new StringBuilder("UPDATE " + table + " SET version = ?, body = ?");
    List<Object> args = new ArrayList<>(List.of(expectedVersion + 1, stored.body()));
    for (Column col : columns) {
      sql.append(", ").append(col.assignment(db.dialect()));
      args.add(col.value());
    }
    sql.append(" WHERE id = ? AND version = ? RETURNING ").append(returning);
    args.add(id);
    args.add(expectedVersion);
    Optional<R> changed = queryOne(c, sql.toString(), mapper, args.toArray());
    if (changed.isPresent()) {
      return changed.get();
    }
    long actual = requireExists(c, id);
    throw new VersionConflictException(subject(id), expectedVersion, actual);
  }

  /**
   * The stored version of {@code id}.
   *
   * @throws NotFoundException when there is no such row
   */
  long requireExists(Connection c, String id) throws SQLException {
    return queryOne(c, "SELECT version FROM " + table + " WHERE id = ?", rs -> rs.getLong(1), id)
        .orElseThrow(() -> new NotFoundException(subject(id)));
  }
}
