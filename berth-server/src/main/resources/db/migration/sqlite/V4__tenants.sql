-- Tenants and the digests of their API tokens (never the tokens). workload_types is the granted
-- types' names, sorted and separated by single spaces (names cannot contain spaces); created_at is
-- INTEGER epoch nanoseconds.

CREATE TABLE tenants (
  id             TEXT    NOT NULL PRIMARY KEY,
  workload_types TEXT    NOT NULL CHECK (workload_types <> ''),
  max_sessions   INTEGER NOT NULL CHECK (max_sessions BETWEEN 1 AND 10000),
  created_at     INTEGER NOT NULL
) STRICT;

CREATE TABLE api_tokens (
  digest     TEXT    NOT NULL PRIMARY KEY CHECK (length(digest) = 64),
  tenant     TEXT    NOT NULL REFERENCES tenants (id),
  created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX api_tokens_by_tenant ON api_tokens (tenant);
