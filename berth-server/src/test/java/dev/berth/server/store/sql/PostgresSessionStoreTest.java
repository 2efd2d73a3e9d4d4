package dev.berth.server.store.sql;

import dev.berth.core.store.SessionStore;
import dev.berth.core.store.SessionStoreContract;
import dev.berth.core.testing.MutableClock;

/**
 * The PostgreSQL store passes the store contract, each test on a fresh database of a real
 * PostgreSQL server run by the test JVM ({@link TestPostgres}).
 */
class PostgresSessionStoreTest extends SessionStoreContract {

  @Override
  protected SessionStore newStore(MutableClock clock) {
    return SqlSessionStore.openPostgres(TestPostgres.freshDatabase(), clock);
  }

  @Override
  protected void closeStore(SessionStore s) {
    ((SqlSessionStore) s).close();
  }
}
