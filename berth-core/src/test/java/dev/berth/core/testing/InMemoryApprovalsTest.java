package dev.berth.core.testing;

import dev.berth.core.approval.Approvals;
import dev.berth.core.approval.ApprovalsContract;

/** The memory adapter passes the approvals contract. */
class InMemoryApprovalsTest extends ApprovalsContract {
  @Override
  protected Approvals newApprovals(MutableClock clock) {
    return new InMemoryApprovals();
  }
}
