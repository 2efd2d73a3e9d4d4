package dev.berth.server.store.sql;

import static dev.berth.server.store.sql.EpochNanos.nanos;

import dev.berth.core.store.Duties;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;

/**
 * The {@code duties} table. Taking, renewing and taking over are one upsert, atomic on both
 * engines: the row is written when it is new, held by the same holder, or expired, and left alone
 * (no row changed) while another holder's is live.
 */
public final class SqlDuties implements Duties {

  private static final String HOLD =
      "INSERT INTO duties(name, holder, expires_at) VALUES (?, ?, ?)"
          + " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
          + " expires_at = excluded.expires_at"
          + " WHERE duties.holder = excluded.holder OR duties.expires_at <= ?";

  private final SqlDatabase db;
  private final InstantSource clock;

  private SqlDuties(SqlDatabase db, InstantSource clock) {
    this.db = db;
    this.clock = clock;
  }

  /** The duties kept in {@code store}'s database, judged by {@code clock}. */
  public static SqlDuties sharing(SqlSessionStore store, InstantSource clock) {
    return new SqlDuties(Objects.requireNonNull(store, "store").database(), clock);
  }

  @Override
  public void release(String duty, String holder) {
    var unused =
        db.write(
            "release duty " + duty + " of " + holder,
            c ->
                SqlDatabase.update(
                    c, "DELETE FROM duties WHERE name = ? AND holder = ?", duty, holder));
  }

  @Override
  public boolean hold(String duty, String holder, Duration ttl) {
    return db.write(
        "hold duty " + duty + " for " + holder,
        c -> {
          Instant now = clock.instant();
          return SqlDatabase.update(c, HOLD, duty, holder, nanos(now.plus(ttl)), nanos(now)) == 1;
        });
  }
}
