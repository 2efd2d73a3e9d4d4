package dev.berth.server.store.sql;

import dev.berth.core.tenant.TenantDirectory;
import dev.berth.core.tenant.TenantDirectoryContract;
import dev.berth.core.testing.MutableClock;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL tenant directory passes the directory contract, each test on a fresh database of a
 * real PostgreSQL server ({@link TestPostgres}), opened through a session store as the server does.
 */
class PostgresTenantDirectoryTest extends TenantDirectoryContract {

  private @Nullable SqlSessionStore store;

  @Override
  protected TenantDirectory newDirectory() {
    SqlSessionStore opened =
        SqlSessionStore.openPostgres(
            TestPostgres.freshDatabase(), MutableClock.at("2026-11-29T10:00:00Z"));
    store = opened;
    return SqlTenantDirectory.sharing(opened);
  }

  @Override
  protected void closeDirectory(TenantDirectory d) {
    if (store != null) {
      store.close();
    }
  }
}
