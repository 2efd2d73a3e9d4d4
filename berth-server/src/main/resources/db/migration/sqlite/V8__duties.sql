-- Work one control plane at a time does for the whole installation (the idle scan): its holder and
-- until when it holds it, in nanoseconds since the epoch of the control planes' clock.
CREATE TABLE duties (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
