package dev.berth.core.testing;

import dev.berth.core.store.SessionLeases;
import dev.berth.core.store.StoreEpochs;
import dev.berth.core.store.StoreEpochsContract;

/** The in-memory store's epoch passes the same contract as real adapters. */
class InMemoryStoreEpochsTest extends StoreEpochsContract {
  @Override
  protected StoreEpochs newEpochs() {
    return new InMemorySessionStore(MutableClock.at("2026-12-05T10:00:00Z"));
  }

  @Override
  protected SessionLeases leasesOf(StoreEpochs epochs) {
    return (InMemorySessionStore) epochs;
  }

  @Override
  protected StoreEpochs reopen(StoreEpochs epochs) {
    // Memory is never reopened: the same object is the same store.
    return epochs;
  }
}
