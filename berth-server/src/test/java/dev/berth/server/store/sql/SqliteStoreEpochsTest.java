package dev.berth.server.store.sql;

import dev.berth.core.store.SessionLeases;
import dev.berth.core.store.StoreEpochs;
import dev.berth.core.store.StoreEpochsContract;
import dev.berth.core.testing.MutableClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/** The store epoch in a real SQLite file passes the store epoch contract. */
class SqliteStoreEpochsTest extends StoreEpochsContract {
  @TempDir Path dir;
  private final MutableClock clock = MutableClock.at("2026-12-05T10:00:00Z");
  private final List<SqlSessionStore> opened = new ArrayList<>();

  @Override
  protected StoreEpochs newEpochs() {
    return open();
  }

  @Override
  protected StoreEpochs reopen(StoreEpochs epochs) {
    opened.forEach(SqlSessionStore::close);
    return open();
  }

  @Override
  protected SessionLeases leasesOf(StoreEpochs epochs) {
    return opened.getLast().leases();
  }

  @Override
  protected void closeEpochs() {
    opened.forEach(SqlSessionStore::close);
  }

  private StoreEpochs open() {
    SqlSessionStore store = SqlSessionStore.openSqlite(dir.resolve("berth.db"), clock);
    opened.add(store);
    return SqlStoreEpochs.sharing(store);
  }
}
