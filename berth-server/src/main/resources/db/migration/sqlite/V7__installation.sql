-- The installation's id for stores shared by several control planes (see the PostgreSQL schema).
-- An embedded store keeps using installation.id in the data directory, which older versions wrote.
CREATE TABLE installation (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  id TEXT NOT NULL
);
