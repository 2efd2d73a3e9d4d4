package dev.berth.server.store.sqlite;

import static dev.berth.server.store.sqlite.EpochNanos.instant;
import static dev.berth.server.store.sqlite.EpochNanos.nanos;
import static dev.berth.server.store.sqlite.SqliteDatabase.queryOne;
import static dev.berth.server.store.sqlite.SqliteDatabase.update;

import dev.berth.core.error.StaleFenceException;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.FencingToken;
import dev.berth.core.store.Lease;
import dev.berth.core.store.SessionLeases;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The {@code session_leases} table: the session leases and the fence check of lifecycle writes.
 *
 * <p>The table holds one row per session that was ever leased: the holder, the expiry (both NULL
 * once released) and the highest token ever issued. Release clears the holder but keeps the row, so
 * tokens only grow and are never reused. A fenced write is accepted only with exactly that highest
 * token; {@link #requireFence} takes the connection of the write's transaction so that the check
 * and the write it guards are one serialized transaction. Expiry is judged by the injected clock,
 * never by SQLite's, so that every process sharing the file and every test agrees on it.
 */
final class LeaseRows implements SessionLeases {

  private final SqliteDatabase db;
  private final InstantSource clock;

  LeaseRows(SqliteDatabase db, InstantSource clock) {
    this.db = db;
    this.clock = clock;
  }

  @Override
  public Optional<Lease> acquire(SessionId session, String holder, Duration ttl) {
    return db.write(
        "acquire the lease of session " + session,
        c -> {
          Instant now = clock.instant();
          Optional<LeaseRow> row = leaseRow(c, session);
          boolean live = row.map(r -> r.isLiveAt(nanos(now))).orElse(false);
          if (live && !row.get().holder().equals(holder)) {
            return Optional.empty();
          }
          long token = live ? row.get().token() : row.map(LeaseRow::token).orElse(0L) + 1;
          Lease lease = new Lease(session, holder, new FencingToken(token), now.plus(ttl));
          update(
              c,
              "INSERT INTO session_leases (session_id, holder, token, expires_at)"
                  + " VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET"
                  + " holder = excluded.holder, token = excluded.token,"
                  + " expires_at = excluded.expires_at",
              session.value(),
              holder,
              token,
              nanos(lease.expiresAt()));
          return Optional.of(lease);
        });
  }

  @Override
  public Lease renew(Lease lease, Duration ttl) {
    SessionId session = lease.sessionId();
    return db.write(
        "renew the lease of session " + session,
        c -> {
          Instant now = clock.instant();
          Optional<LeaseRow> row = leaseRow(c, session);
          boolean current =
              row.map(r -> r.isLiveAt(nanos(now)) && r.token() == lease.token().value())
                  .orElse(false);
          if (!current) {
            throw new StaleFenceException(
                "lease of session " + session,
                lease.token().value(),
                row.map(LeaseRow::token).orElse(0L));
          }
          Lease renewed = new Lease(session, lease.holder(), lease.token(), now.plus(ttl));
          update(
              c,
              "UPDATE session_leases SET expires_at = ? WHERE session_id = ?",
              nanos(renewed.expiresAt()),
              session.value());
          return renewed;
        });
  }

  @Override
  public void release(Lease lease) {
    db.write(
        "release the lease of session " + lease.sessionId(),
        c ->
            update(
                c,
                "UPDATE session_leases SET holder = NULL, expires_at = NULL"
                    + " WHERE session_id = ? AND token = ?",
                lease.sessionId().value(),
                lease.token().value()));
  }

  @Override
  public Optional<Lease> current(SessionId session) {
    long now = nanos(clock.instant());
    return db.read(
        "read the lease of session " + session,
        c ->
            leaseRow(c, session)
                .filter(r -> r.isLiveAt(now))
                .map(
                    r ->
                        new Lease(
                            session,
                            r.holder(),
                            new FencingToken(r.token()),
                            instant(r.expiresAt()))));
  }

  /**
   * Rejects a write fenced with anything but the session's highest token; {@code c} is the write's
   * transaction.
   *
   * @throws StaleFenceException when {@code fence} is not the highest token issued
   */
  void requireFence(Connection c, SessionId session, FencingToken fence) throws SQLException {
    long current = leaseRow(c, session).map(LeaseRow::token).orElse(0L);
    if (fence.value() != current) {
      throw new StaleFenceException("session " + session, fence.value(), current);
    }
  }

  private static Optional<LeaseRow> leaseRow(Connection c, SessionId session) throws SQLException {
    return queryOne(
        c,
        "SELECT holder, token, expires_at FROM session_leases WHERE session_id = ?",
        rs -> new LeaseRow(rs.getString("holder"), rs.getLong("token"), rs.getLong("expires_at")),
        session.value());
  }

  /** A {@code session_leases} row; {@code holder} is null once released. */
  private record LeaseRow(String holder, long token, long expiresAt) {
    boolean isLiveAt(long nowNanos) {
      return holder != null && expiresAt > nowNanos;
    }
  }
}
