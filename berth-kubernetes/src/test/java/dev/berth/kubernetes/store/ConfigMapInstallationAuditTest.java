package dev.berth.kubernetes.store;

import dev.berth.core.store.InstallationAuditContract;
import dev.berth.core.testing.MutableClock;

/** The ConfigMap store's installation-wide audit log passes its contract. */
class ConfigMapInstallationAuditTest extends InstallationAuditContract<ConfigMapSessionStore> {
  private MockApiServer server;

  @Override
  protected ConfigMapSessionStore newStore(MutableClock clock) {
    server = MockApiServer.start();
    return new ConfigMapSessionStore(server.client(), MockApiServer.NAMESPACE, "test", clock);
  }

  @Override
  protected void closeStore(ConfigMapSessionStore s) {
    server.close();
  }
}
