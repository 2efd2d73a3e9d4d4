-- Whether the session's deletion was accepted (intent TERMINATED, final): the public listing
-- leaves these out unless asked, so the column is indexed with the listing's order.
ALTER TABLE sessions ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1));

-- json_valid first: one unreadable body (the store reports it when read) must not stop the
-- migration, and with it the server.
UPDATE sessions SET deleted = 1
  WHERE json_valid(body) AND json_extract(body, '$.intent.desired') = 'TERMINATED';

CREATE INDEX sessions_by_deleted_created ON sessions (deleted, created_at, id);
