package dev.berth.server.store.sql;

import dev.berth.core.store.SessionLeases;
import dev.berth.core.store.StoreEpochs;
import dev.berth.core.store.StoreEpochsContract;
import dev.berth.core.testing.MutableClock;
import java.util.ArrayList;
import java.util.List;

/** The store epoch in a real PostgreSQL ({@link TestPostgres}) passes the store epoch contract. */
class PostgresStoreEpochsTest extends StoreEpochsContract {
  private final MutableClock clock = MutableClock.at("2026-12-05T10:00:00Z");
  private final List<SqlSessionStore> opened = new ArrayList<>();
  // A fresh database for each test: JUnit makes a new instance of the class for each.
  private final PostgresLocation database = TestPostgres.freshDatabase();

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
    SqlSessionStore store = SqlSessionStore.openPostgres(database, clock);
    opened.add(store);
    return SqlStoreEpochs.sharing(store);
  }
}
