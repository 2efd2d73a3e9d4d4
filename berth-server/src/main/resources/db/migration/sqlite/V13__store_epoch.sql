-- The store's epoch (dev.berth.core.store.StoreEpochs): one number for the installation that only
-- grows, advanced at every control-plane start and periodically. Runtimes and archives keep the
-- highest they saw; a store restored from an older backup has a lower one, and that is how the
-- control plane finds out (docs/operations.md, "Restoring a store backup"). Fencing tokens issued
-- in an epoch start at epoch * 2^32 + 1, so none is issued again after such a restore.
-- recovery_since (nanoseconds since the epoch of the control planes' clock) is set while recovery
-- mode is on: the epoch is raised as soon as it begins, so a restart could not tell otherwise.
CREATE TABLE store_epoch (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  epoch BIGINT NOT NULL CHECK (epoch >= 0),
  recovery_since BIGINT
);
INSERT INTO store_epoch (singleton, epoch) VALUES (1, 0);
