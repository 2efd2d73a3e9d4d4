-- The PostgreSQL schema of the store: the tables of the SQLite schema (db/migration/sqlite, V1 to
-- V6) in one migration, with the same columns and the same meaning, so the store's SQL is the
-- same for both. Instants are BIGINT epoch nanoseconds (UTC), so they sort and compare exactly;
-- bodies are StoreJson text, kept byte for byte. PostgreSQL has no implicit rowid: seq orders the
-- rows of a session's operations and executions by insertion, as rowid does in SQLite.

CREATE TABLE sessions (
  id          TEXT    NOT NULL PRIMARY KEY,
  tenant      TEXT    NOT NULL,
  phase       TEXT    NOT NULL,
  created_at  BIGINT  NOT NULL,
  version     BIGINT  NOT NULL CHECK (version >= 1),
  last_access BIGINT  NOT NULL,
  body        TEXT    NOT NULL,
  deleted     INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1))
);

CREATE INDEX sessions_by_tenant_created ON sessions (tenant, created_at, id);
CREATE INDEX sessions_by_created ON sessions (created_at, id);
CREATE INDEX sessions_by_phase ON sessions (phase);
CREATE INDEX sessions_by_deleted_created ON sessions (deleted, created_at, id);

-- One row per session that ever had a lease; release clears holder and expires_at only, so token
-- (the highest fencing token ever issued) is never reused.
CREATE TABLE session_leases (
  session_id TEXT   NOT NULL PRIMARY KEY,
  holder     TEXT,
  token      BIGINT NOT NULL CHECK (token >= 1),
  expires_at BIGINT,
  CHECK ((holder IS NULL) = (expires_at IS NULL))
);

CREATE TABLE operations (
  seq        BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
  id         TEXT   NOT NULL PRIMARY KEY,
  session_id TEXT   NOT NULL,
  state      TEXT   NOT NULL,
  created_at BIGINT NOT NULL,
  version    BIGINT NOT NULL CHECK (version >= 1),
  body       TEXT   NOT NULL
);

CREATE INDEX operations_by_session ON operations (session_id, created_at, seq);
CREATE INDEX operations_by_state ON operations (state);

CREATE TABLE executions (
  seq        BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
  id         TEXT   NOT NULL PRIMARY KEY,
  session_id TEXT   NOT NULL,
  version    BIGINT NOT NULL CHECK (version >= 1),
  created_at BIGINT NOT NULL,
  body       TEXT   NOT NULL
);

CREATE INDEX executions_by_session ON executions (session_id, created_at, seq);

-- The append-only audit log; an identity never reuses a value. session_id is NULL for
-- installation-wide events.
CREATE TABLE audit_events (
  seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id TEXT,
  at         BIGINT NOT NULL,
  actor      TEXT   NOT NULL,
  type       TEXT   NOT NULL,
  detail     TEXT   NOT NULL
);

CREATE INDEX audit_events_by_session ON audit_events (session_id, seq);

-- Tenants and the digests of their API tokens (never the tokens).
CREATE TABLE tenants (
  id             TEXT    NOT NULL PRIMARY KEY,
  workload_types TEXT    NOT NULL CHECK (workload_types <> ''),
  max_sessions   INTEGER NOT NULL CHECK (max_sessions BETWEEN 1 AND 10000),
  created_at     BIGINT  NOT NULL,
  network        TEXT    NOT NULL DEFAULT 'egress' CHECK (network IN ('none', 'egress'))
);

CREATE TABLE api_tokens (
  digest     TEXT   NOT NULL PRIMARY KEY CHECK (length(digest) = 64),
  tenant     TEXT   NOT NULL REFERENCES tenants (id),
  created_at BIGINT NOT NULL
);

CREATE INDEX api_tokens_by_tenant ON api_tokens (tenant);
