-- Sessions and their leases. Instants are INTEGER epoch nanoseconds (UTC), so they sort and
-- compare exactly; bodies are StoreJson format 1. The columns beside the body exist for
-- compare-and-swap, filtering and keyset paging; version and last_access are authoritative over
-- the copies inside the body.

CREATE TABLE sessions (
  id          TEXT    NOT NULL PRIMARY KEY,
  tenant      TEXT    NOT NULL,
  phase       TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  version     INTEGER NOT NULL CHECK (version >= 1),
  last_access INTEGER NOT NULL,
  body        TEXT    NOT NULL
) STRICT;

CREATE INDEX sessions_by_tenant_created ON sessions (tenant, created_at, id);
CREATE INDEX sessions_by_created ON sessions (created_at, id);
CREATE INDEX sessions_by_phase ON sessions (phase);

-- One row per session that ever had a lease. The row outlives release, which only clears holder
-- and expires_at, so token (the highest fencing token ever issued) is never reused.
CREATE TABLE session_leases (
  session_id TEXT    NOT NULL PRIMARY KEY,
  holder     TEXT,
  token      INTEGER NOT NULL CHECK (token >= 1),
  expires_at INTEGER,
  CHECK ((holder IS NULL) = (expires_at IS NULL))
) STRICT;
