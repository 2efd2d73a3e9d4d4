package dev.berth.kubernetes.store;

import dev.berth.core.store.SessionStore;
import dev.berth.core.store.SessionStoreContract;
import dev.berth.core.testing.MutableClock;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The ConfigMap store passes the store contract. The API server is simulated: each test runs
 * against a fresh fabric8 mock server in CRUD mode ({@link MockApiServer}), which keeps objects in
 * memory and answers a write under a stale resourceVersion, or a create of a taken name, with 409
 * Conflict as a real API server does ({@link ConfigMapMockApiServerTest} shows it).
 */
class ConfigMapSessionStoreTest extends SessionStoreContract {
  private MockApiServer server;

  @Override
  protected SessionStore newStore(MutableClock clock) {
    server = MockApiServer.start();
    KubernetesClient client = server.client();
    return new ConfigMapSessionStore(client, MockApiServer.NAMESPACE, "test", clock);
  }

  @Override
  protected void closeStore(SessionStore s) {
    server.close();
  }
}
