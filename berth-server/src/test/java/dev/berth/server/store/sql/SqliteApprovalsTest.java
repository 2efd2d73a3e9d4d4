package dev.berth.server.store.sql;

import dev.berth.core.approval.Approvals;
import dev.berth.core.approval.ApprovalsContract;
import dev.berth.core.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The approvals on a real SQLite file pass the approvals contract. */
class SqliteApprovalsTest extends ApprovalsContract {
  @TempDir Path dir;
  private SqlSessionStore store;

  @Override
  protected Approvals newApprovals(MutableClock clock) {
    store = SqlSessionStore.openSqlite(dir.resolve("berth.db"), clock);
    return SqlApprovals.sharing(store);
  }

  @Override
  protected void closeApprovals(Approvals a) {
    store.close();
  }
}
