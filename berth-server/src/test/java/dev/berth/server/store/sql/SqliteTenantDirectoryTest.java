package dev.berth.server.store.sql;

import dev.berth.core.tenant.TenantDirectory;
import dev.berth.core.tenant.TenantDirectoryContract;
import dev.berth.core.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite tenant directory passes the directory contract, each test on a fresh database file
 * opened through a session store, as the server does.
 */
class SqliteTenantDirectoryTest extends TenantDirectoryContract {
  @TempDir Path dir;

  private SqlSessionStore store;

  @Override
  protected TenantDirectory newDirectory() {
    store =
        SqlSessionStore.openSqlite(
            dir.resolve("berth.db"), MutableClock.at("2026-11-29T10:00:00Z"));
    return SqlTenantDirectory.sharing(store);
  }

  @Override
  protected void closeDirectory(TenantDirectory d) {
    store.close();
  }
}
