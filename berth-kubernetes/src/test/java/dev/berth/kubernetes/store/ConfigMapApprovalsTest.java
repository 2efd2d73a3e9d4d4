package dev.berth.kubernetes.store;

import dev.berth.core.approval.Approvals;
import dev.berth.core.approval.ApprovalsContract;
import dev.berth.core.testing.MutableClock;

/** The approvals in ConfigMaps pass the approvals contract, on a fresh mock API server. */
class ConfigMapApprovalsTest extends ApprovalsContract {
  private MockApiServer server;

  @Override
  protected Approvals newApprovals(MutableClock clock) {
    server = MockApiServer.start();
    return new ConfigMapApprovals(server.client(), MockApiServer.NAMESPACE, "test");
  }

  @Override
  protected void closeApprovals(Approvals a) {
    server.close();
  }
}
