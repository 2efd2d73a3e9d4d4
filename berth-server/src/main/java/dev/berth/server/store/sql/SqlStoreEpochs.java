package dev.berth.server.store.sql;

import static dev.berth.server.store.sql.SqlDatabase.queryOne;
import static dev.berth.server.store.sql.SqlDatabase.update;

import dev.berth.core.store.StoreEpochs;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code store_epoch} table: one row, raised in place. Advancing is an {@code UPDATE ... SET
 * epoch = epoch + 1} and a read in one transaction, so two processes advancing at once get two
 * epochs (the update takes the row's write lock on both engines).
 */
public final class SqlStoreEpochs implements StoreEpochs {

  private static final String READ = "SELECT epoch FROM store_epoch WHERE singleton = 1";

  private final SqlDatabase db;

  private SqlStoreEpochs(SqlDatabase db) {
    this.db = db;
  }

  /** The epoch kept in {@code store}'s database. */
  public static SqlStoreEpochs sharing(SqlSessionStore store) {
    return new SqlStoreEpochs(Objects.requireNonNull(store, "store").database());
  }

  @Override
  public long current() {
    return db.read("read the store epoch", SqlStoreEpochs::read);
  }

  @Override
  public long advance() {
    return db.write(
        "advance the store epoch",
        c -> {
          update(c, "UPDATE store_epoch SET epoch = epoch + 1 WHERE singleton = 1");
          return read(c);
        });
  }

  @Override
  public long raise(long floor) {
    return db.write(
        "raise the store epoch to " + floor,
        c -> {
          update(
              c,
              "UPDATE store_epoch SET epoch = ? WHERE singleton = 1 AND epoch < ?",
              floor,
              floor);
          return read(c);
        });
  }

  @Override
  public Optional<Instant> recoverySince() {
    return db.read(
        "read whether the store is in recovery mode",
        c ->
            queryOne(
                    c,
                    "SELECT recovery_since FROM store_epoch"
                        + " WHERE singleton = 1 AND recovery_since IS NOT NULL",
                    rs -> EpochNanos.instant(rs.getLong(1)))
                .stream()
                .findFirst());
  }

  @Override
  public Instant beginRecovery(Instant since) {
    return db.write(
        "record that recovery mode began",
        c -> {
          update(
              c,
              "UPDATE store_epoch SET recovery_since = ?"
                  + " WHERE singleton = 1 AND recovery_since IS NULL",
              EpochNanos.nanos(since));
          return queryOne(
                  c,
                  "SELECT recovery_since FROM store_epoch WHERE singleton = 1",
                  rs -> EpochNanos.instant(rs.getLong(1)))
              .orElse(since);
        });
  }

  @Override
  public void endRecovery() {
    db.write(
        "record that recovery mode ended",
        c -> update(c, "UPDATE store_epoch SET recovery_since = NULL WHERE singleton = 1"));
  }

  /** The epoch, read on {@code c} (inside the caller's transaction when it has one). */
  static long read(Connection c) throws SQLException {
    return queryOne(c, READ, rs -> rs.getLong(1)).orElse(0L);
  }
}
