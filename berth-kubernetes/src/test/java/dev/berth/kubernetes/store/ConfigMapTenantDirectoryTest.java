package dev.berth.kubernetes.store;

import dev.berth.core.tenant.TenantDirectory;
import dev.berth.core.tenant.TenantDirectoryContract;

/** The ConfigMap tenant directory passes the directory contract, on a fresh mock API server. */
class ConfigMapTenantDirectoryTest extends TenantDirectoryContract {
  private MockApiServer server;

  @Override
  protected TenantDirectory newDirectory() {
    server = MockApiServer.start();
    return new ConfigMapTenantDirectory(server.client(), MockApiServer.NAMESPACE, "test");
  }

  @Override
  protected void closeDirectory(TenantDirectory d) {
    server.close();
  }
}
