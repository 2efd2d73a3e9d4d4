package dev.berth.kubernetes.store;

import dev.berth.core.store.SessionLeases;
import dev.berth.core.store.StoreEpochs;
import dev.berth.core.store.StoreEpochsContract;
import dev.berth.core.testing.MutableClock;

/**
 * The ConfigMap store's epoch passes the store epoch contract, on a fresh fabric8 mock API server
 * for each test ({@link MockApiServer}).
 */
class ConfigMapStoreEpochsTest extends StoreEpochsContract {
  private final MutableClock clock = MutableClock.at("2026-12-05T10:00:00Z");
  private MockApiServer server;

  @Override
  protected StoreEpochs newEpochs() {
    server = MockApiServer.start();
    return open();
  }

  @Override
  protected StoreEpochs reopen(StoreEpochs epochs) {
    return open();
  }

  @Override
  protected SessionLeases leasesOf(StoreEpochs epochs) {
    return ((ConfigMapSessionStore) epochs).leases();
  }

  @Override
  protected void closeEpochs() {
    server.close();
  }

  private ConfigMapSessionStore open() {
    return new ConfigMapSessionStore(server.client(), MockApiServer.NAMESPACE, "test", clock);
  }
}
