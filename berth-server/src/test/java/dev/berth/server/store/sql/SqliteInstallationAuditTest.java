package dev.berth.server.store.sql;

import dev.berth.core.store.InstallationAuditContract;
import dev.berth.core.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The installation-wide audit log on a SQLite file. */
class SqliteInstallationAuditTest extends InstallationAuditContract<SqlSessionStore> {
  @TempDir Path dir;

  @Override
  protected SqlSessionStore newStore(MutableClock clock) {
    return SqlSessionStore.openSqlite(dir.resolve("berth.db"), clock);
  }

  @Override
  protected void closeStore(SqlSessionStore s) {
    s.close();
  }
}
