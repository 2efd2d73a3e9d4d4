package dev.berth.server.store.sql;

import static dev.berth.server.store.sql.EpochNanos.instant;
import static dev.berth.server.store.sql.EpochNanos.nanos;
import static dev.berth.server.store.sql.SqlDatabase.queryList;
import static dev.berth.server.store.sql.SqlDatabase.queryOne;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.store.RecordSessionStore;
import java.util.List;
import java.util.Optional;

/**
 * The {@code audit_events} table, the append-only audit log. Unlike the record tables it has no
 * version and no body: an event is never rewritten, so there is nothing to compare and swap, and
 * its few fields are plain columns. The sequence is SQLite's {@code AUTOINCREMENT} key, which only
 * grows and is never reused, so a reader can resume after the last sequence it saw.
 */
final class AuditRows implements RecordSessionStore.AuditTrail {

  /** The key every append serializes on. */
  private static final String INSTALLATION = "installation";

  private final SqlDatabase db;

  AuditRows(SqlDatabase db) {
    this.db = db;
  }

  @Override
  public AuditEvent append(AuditEvent event) {
    long at = nanos(event.at());
    long seq =
        db.write(
            "append an audit event",
            c -> {
              // One lock for every append, not one per session: then PostgreSQL commits appends in
              // sequence order, and a reader of the whole log that goes on from the last sequence
              // it saw never misses one committed late with a smaller number. An append is a
              // transaction of its own, so the lock is held for one insert.
              db.dialect().serializeAppends(c, INSTALLATION);
              return queryOne(
                      c,
                      "INSERT INTO audit_events (session_id, at, actor, type, detail)"
                          + " VALUES (?, ?, ?, ?, ?) RETURNING seq",
                      rs -> rs.getLong(1),
                      event.sessionId().map(SessionId::value).orElse(null),
                      at,
                      event.actor(),
                      event.type(),
                      event.detail())
                  .orElseThrow();
            });
    return event.withSequence(seq);
  }

  @Override
  public List<AuditEvent> events(SessionId session, long after, int limit) {
    if (limit < 0) {
      throw new InvalidValueException("event limit must be >= 0, was " + limit);
    }
    return db.read(
        "read the audit events of session " + session,
        c ->
            queryList(
                c,
                "SELECT seq, at, actor, type, detail FROM audit_events"
                    + " WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                rs ->
                    new AuditEvent(
                        rs.getLong("seq"),
                        Optional.of(session),
                        instant(rs.getLong("at")),
                        rs.getString("actor"),
                        rs.getString("type"),
                        rs.getString("detail")),
                session.value(),
                after,
                limit));
  }

  List<AuditEvent> allEvents(long after, int limit) {
    if (limit < 0) {
      throw new InvalidValueException("event limit must be >= 0, was " + limit);
    }
    return db.read(
        "read the installation's audit events",
        c ->
            queryList(
                c,
                "SELECT seq, session_id, at, actor, type, detail FROM audit_events"
                    + " WHERE seq > ? ORDER BY seq LIMIT ?",
                rs ->
                    new AuditEvent(
                        rs.getLong("seq"),
                        Optional.ofNullable(rs.getString("session_id")).map(SessionId::new),
                        instant(rs.getLong("at")),
                        rs.getString("actor"),
                        rs.getString("type"),
                        rs.getString("detail")),
                after,
                limit));
  }
}
