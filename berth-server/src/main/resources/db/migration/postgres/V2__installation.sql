-- The installation's id, minted by the first control plane that starts on the database and read by
-- every other: replicas must write the same id into their runtimes' ownership labels.
CREATE TABLE installation (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  id TEXT NOT NULL
);
