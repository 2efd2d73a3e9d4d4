package dev.berth.server.store.sql;

import dev.berth.core.tenant.AdmissionLock;
import dev.berth.core.tenant.AdmissionLockContract;
import dev.berth.core.testing.MutableClock;
import java.util.ArrayList;
import java.util.List;

/**
 * The advisory locks of a real PostgreSQL ({@link TestPostgres}) pass the admission lock contract:
 * each process a store of its own on one database.
 */
class PostgresAdmissionLockTest extends AdmissionLockContract {
  private PostgresLocation database;
  private MutableClock storeClock;
  private final List<SqlSessionStore> stores = new ArrayList<>();

  @Override
  protected void openStore(MutableClock clock) {
    database = TestPostgres.freshDatabase();
    storeClock = clock;
  }

  @Override
  protected AdmissionLock newProcess() {
    SqlSessionStore store = SqlSessionStore.openPostgres(database, storeClock);
    stores.add(store);
    return SqlAdmissionLock.sharing(store);
  }

  @Override
  protected void closeStore() {
    stores.forEach(SqlSessionStore::close);
  }
}
