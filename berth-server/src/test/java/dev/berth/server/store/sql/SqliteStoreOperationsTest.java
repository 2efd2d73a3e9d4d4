package dev.berth.server.store.sql;

import dev.berth.core.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The grouped counts on a SQLite file. */
class SqliteStoreOperationsTest extends SqlStoreOperationsContract {
  @TempDir Path dir;

  @Override
  protected SqlSessionStore open(MutableClock clock) {
    return SqlSessionStore.openSqlite(dir.resolve("berth.db"), clock);
  }
}
