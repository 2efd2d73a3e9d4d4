package dev.berth.server.store.sql;

import dev.berth.core.store.InstallationAuditContract;
import dev.berth.core.testing.MutableClock;

/**
 * The installation-wide audit log on a real PostgreSQL server ({@link TestPostgres}), where
 * concurrent appends would commit out of sequence order if they were not serialized.
 */
class PostgresInstallationAuditTest extends InstallationAuditContract<SqlSessionStore> {

  @Override
  protected SqlSessionStore newStore(MutableClock clock) {
    return SqlSessionStore.openPostgres(TestPostgres.freshDatabase(), clock);
  }

  @Override
  protected void closeStore(SqlSessionStore s) {
    s.close();
  }
}
