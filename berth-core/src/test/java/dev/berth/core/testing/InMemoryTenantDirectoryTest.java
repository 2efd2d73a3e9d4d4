package dev.berth.core.testing;

import dev.berth.core.tenant.TenantDirectory;
import dev.berth.core.tenant.TenantDirectoryContract;

/** The in-memory tenant directory passes the same contract as real adapters. */
class InMemoryTenantDirectoryTest extends TenantDirectoryContract {
  @Override
  protected TenantDirectory newDirectory() {
    return new InMemoryTenantDirectory();
  }
}
