package dev.berth.server.store.sql;

import dev.berth.store.StoreJson;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * How a record type is held in the {@code body} column: the pair of {@link StoreJson} methods that
 * write and read it, and how its version is set. Kept apart from the SQL so that the tables share
 * one way of encoding a record at a version; the {@code version} column is authoritative over the
 * body's copy, so a record read back takes its version from the column.
 *
 * @param <T> the record type
 */
record RecordBody<T>(
    Function<T, String> writer,
    BiFunction<String, String, T> reader,
    BiFunction<T, Long, T> withVersion) {

  /** A record as it is stored, with its encoded body. */
  record Versioned<T>(T value, String body) {}

  /** {@code record} at {@code version}, with the body to store for it. */
  Versioned<T> at(T record, long version) {
    T stored = withVersion.apply(record, version);
    return new Versioned<>(stored, writer.apply(stored));
  }

  /** The record of the current row ({@code id}, {@code version}, {@code body}), at its version. */
  T read(ResultSet rs) throws SQLException {
    return withVersion.apply(
        reader.apply(rs.getString("id"), rs.getString("body")), rs.getLong("version"));
  }
}
