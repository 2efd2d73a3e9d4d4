-- The tool calls of agent sessions that wait, or waited, for a decision (dev.berth.core.approval).
-- Instants are nanoseconds since the epoch. A row is written pending and ended once: the end is an
-- UPDATE guarded by state = 'PENDING', so two deciders racing end it once.
CREATE TABLE approvals (
  id                TEXT NOT NULL PRIMARY KEY,
  session_id        TEXT NOT NULL,
  tenant            TEXT NOT NULL,
  tool              TEXT NOT NULL,
  arguments_digest  TEXT NOT NULL,
  arguments_preview TEXT NOT NULL,
  requester         TEXT NOT NULL,
  created_at        BIGINT NOT NULL,
  expires_at        BIGINT NOT NULL,
  state             TEXT NOT NULL CHECK (state IN ('PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED')),
  reason            TEXT,
  decided_by        TEXT,
  decided_at        BIGINT
);

CREATE INDEX approvals_by_session ON approvals (session_id, created_at);
CREATE INDEX approvals_pending_by_expiry ON approvals (state, expires_at);
