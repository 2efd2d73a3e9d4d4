-- The store's epoch (dev.berth.core.store.StoreEpochs): one number for the installation that only
-- grows, advanced at every control-plane start and periodically. Runtimes and archives keep the
-- highest they saw; a store restored from an older backup has a lower one, and that is how the
-- control plane finds out (docs/operations.md, "Restoring a store backup"). Fencing tokens issued
-- in an epoch start at epoch * 2^32 + 1, so none is issued again after such a restore.
CREATE TABLE store_epoch (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  epoch BIGINT NOT NULL CHECK (epoch >= 0)
);
INSERT INTO store_epoch (singleton, epoch) VALUES (1, 0);
