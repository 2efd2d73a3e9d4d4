package dev.berth.server.store.sql;

import dev.berth.core.store.SessionStore;
import dev.berth.core.store.SessionStoreContract;
import dev.berth.core.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite store passes the store contract, each test on a fresh database file in a directory
 * that JUnit deletes after the test.
 */
class SqliteSessionStoreTest extends SessionStoreContract {
  @TempDir Path dir;

  @Override
  protected SessionStore newStore(MutableClock clock) {
    return SqlSessionStore.openSqlite(dir.resolve("berth.db"), clock);
  }

  @Override
  protected void closeStore(SessionStore s) {
    ((SqlSessionStore) s).close();
  }
}
