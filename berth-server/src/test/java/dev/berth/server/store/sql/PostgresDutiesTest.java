package dev.berth.server.store.sql;

import dev.berth.core.store.Duties;
import dev.berth.core.store.DutiesContract;
import dev.berth.core.testing.MutableClock;

/** The duties on a real PostgreSQL ({@link TestPostgres}) pass the duties contract. */
class PostgresDutiesTest extends DutiesContract {
  private SqlSessionStore store;

  @Override
  protected Duties newDuties(MutableClock clock) {
    store = SqlSessionStore.openPostgres(TestPostgres.freshDatabase(), clock);
    return SqlDuties.sharing(store, clock);
  }

  @Override
  protected void closeDuties(Duties d) {
    store.close();
  }
}
