package dev.berth.core.testing;

import dev.berth.core.store.SessionStore;
import dev.berth.core.store.SessionStoreContract;

/** The in-memory store used by the model tests passes the same contract as real adapters. */
class InMemorySessionStoreTest extends SessionStoreContract {
  @Override
  protected SessionStore newStore(MutableClock clock) {
    return new InMemorySessionStore(clock);
  }
}
