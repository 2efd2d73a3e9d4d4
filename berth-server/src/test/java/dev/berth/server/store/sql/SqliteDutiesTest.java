package dev.berth.server.store.sql;

import dev.berth.core.store.Duties;
import dev.berth.core.store.DutiesContract;
import dev.berth.core.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The duties on a real SQLite file pass the duties contract. */
class SqliteDutiesTest extends DutiesContract {
  @TempDir Path dir;
  private SqlSessionStore store;

  @Override
  protected Duties newDuties(MutableClock clock) {
    store = SqlSessionStore.openSqlite(dir.resolve("berth.db"), clock);
    return SqlDuties.sharing(store, clock);
  }

  @Override
  protected void closeDuties(Duties d) {
    store.close();
  }
}
