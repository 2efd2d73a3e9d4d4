-- Operations and executions: bodies are StoreJson format 1; created_at is INTEGER epoch
-- nanoseconds (an execution's submittedAt). The version column is authoritative over the body's.

CREATE TABLE operations (
  id         TEXT    NOT NULL PRIMARY KEY,
  session_id TEXT    NOT NULL,
  state      TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  version    INTEGER NOT NULL CHECK (version >= 1),
  body       TEXT    NOT NULL
) STRICT;

CREATE INDEX operations_by_session ON operations (session_id, created_at);
CREATE INDEX operations_by_state ON operations (state);

CREATE TABLE executions (
  id         TEXT    NOT NULL PRIMARY KEY,
  session_id TEXT    NOT NULL,
  version    INTEGER NOT NULL CHECK (version >= 1),
  created_at INTEGER NOT NULL,
  body       TEXT    NOT NULL
) STRICT;

CREATE INDEX executions_by_session ON executions (session_id, created_at);
