package dev.berth.server.store.sql;

import dev.berth.core.approval.Approvals;
import dev.berth.core.approval.ApprovalsContract;
import dev.berth.core.testing.MutableClock;

/** The approvals on a real PostgreSQL ({@link TestPostgres}) pass the approvals contract. */
class PostgresApprovalsTest extends ApprovalsContract {
  private SqlSessionStore store;

  @Override
  protected Approvals newApprovals(MutableClock clock) {
    store = SqlSessionStore.openPostgres(TestPostgres.freshDatabase(), clock);
    return SqlApprovals.sharing(store);
  }

  @Override
  protected void closeApprovals(Approvals a) {
    store.close();
  }
}
