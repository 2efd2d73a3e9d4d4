-- The append-only audit log. AUTOINCREMENT keeps sequences growing and never reused; session_id
-- is NULL for installation-wide events; at is INTEGER epoch nanoseconds.

CREATE TABLE audit_events (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT,
  at         INTEGER NOT NULL,
  actor      TEXT    NOT NULL,
  type       TEXT    NOT NULL,
  detail     TEXT    NOT NULL
) STRICT;

CREATE INDEX audit_events_by_session ON audit_events (session_id, seq);
