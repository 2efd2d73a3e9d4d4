package dev.berth.server.store.sql;

import static dev.berth.server.store.sql.EpochNanos.instant;
import static dev.berth.server.store.sql.EpochNanos.nanos;
import static dev.berth.server.store.sql.SqlDatabase.queryOne;
import static dev.berth.server.store.sql.SqlDatabase.update;

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
 * tokens only grow and are never reused; a new token also starts at least at the store epoch's
 * first ({@link FencingToken#next}), so none is reused after a restore of an older backup either. A
 * fenced write is accepted only with exactly that highest token; {@link #requireFence} takes the
 * connection of the write's transaction so that the check and the write it guards are one
 * serialized transaction. Expiry is judged by the injected clock, never by SQLite's, so that every
 * process sharing the file and every test agrees on it.
 */
final class LeaseRows implements SessionLeases {

  private final SqlDatabase db;
  private final InstantSource clock;

  LeaseRows(SqlDatabase db, InstantSource clock) {
    this.db = db;
    this.clock = clock;
  }

  @Override
  public Optional<Lease> acquire(SessionId session, String holder, Duration ttl) {
    return db.write(
        "acquire the lease of session " + session,
        c -> {
          Instant now = clock.instant();
          Optional<LeaseRow> row = leaseRow(c, session, db.dialect().lockForUpdate());
          if (row.isEmpty()) {
            Lease first =
                new Lease(
                    session, holder, FencingToken.next(0, SqlStoreEpochs.read(c)), now.plus(ttl));
            if (insertFirst(c, first)) {
              return Optional.of(first);
            }
            // Another process's first lease of the session committed since the read (PostgreSQL:
            // the insert waited for it); it is read again, locked, and judged like any other.
            row = leaseRow(c, session, db.dialect().lockForUpdate());
          }
          LeaseRow r = row.orElseThrow();
          boolean live = r.isLiveAt(nanos(now));
          if (live && !r.holder().equals(holder)) {
            return Optional.empty();
          }
          long token =
              live ? r.token() : FencingToken.next(r.token(), SqlStoreEpochs.read(c)).value();
          Lease lease = new Lease(session, holder, new FencingToken(token), now.plus(ttl));
          update(
              c,
              "UPDATE session_leases SET holder = ?, token = ?, expires_at = ?"
                  + " WHERE session_id = ?",
              holder,
              token,
              nanos(lease.expiresAt()),
              session.value());
          return Optional.of(lease);
        });
  }

  /** Stores the first lease of a session unless a row exists; whether it was stored. */
  private static boolean insertFirst(Connection c, Lease first) throws SQLException {
    return update(
            c,
            "INSERT INTO session_leases (session_id, holder, token, expires_at)"
                + " VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING",
            first.sessionId().value(),
            first.holder(),
            first.token().value(),
            nanos(first.expiresAt()))
        == 1;
  }

  @Override
  public Lease renew(Lease lease, Duration ttl) {
    SessionId session = lease.sessionId();
    return db.write(
        "renew the lease of session " + session,
        c -> {
          Instant now = clock.instant();
          Optional<LeaseRow> row = leaseRow(c, session, db.dialect().lockForUpdate());
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
            leaseRow(c, session, "")
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
    // Locked until the write commits, so that no takeover commits between this check and the
    // write it guards (SQLite's writes are serialized anyway).
    long current =
        leaseRow(c, session, db.dialect().lockForShare()).map(LeaseRow::token).orElse(0L);
    if (fence.value() != current) {
      throw new StaleFenceException("session " + session, fence.value(), current);
    }
  }

  /** The lease row of {@code session}, read with {@code lock} (a locking clause, or empty). */
  private static Optional<LeaseRow> leaseRow(Connection c, SessionId session, String lock)
      throws SQLException {
    return queryOne(
        c,
        "SELECT holder, token, expires_at FROM session_leases WHERE session_id = ?" + lock,
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
