package dev.berth.server.store.sql;

import dev.berth.core.testing.MutableClock;

/** The grouped counts on a real PostgreSQL server run by the test JVM ({@link TestPostgres}). */
class PostgresStoreOperationsTest extends SqlStoreOperationsContract {

  @Override
  protected SqlSessionStore open(MutableClock clock) {
    return SqlSessionStore.openPostgres(TestPostgres.freshDatabase(), clock);
  }
}
