package dev.berth.kubernetes.store;

import dev.berth.core.store.Duties;
import dev.berth.core.store.DutiesContract;
import dev.berth.core.testing.MutableClock;

/** The duties in Leases pass the duties contract, on a fresh mock API server. */
class LeaseDutiesTest extends DutiesContract {
  private MockApiServer server;

  @Override
  protected Duties newDuties(MutableClock clock) {
    server = MockApiServer.start();
    return new LeaseDuties(server.client(), MockApiServer.NAMESPACE, "test", clock);
  }

  @Override
  protected void closeDuties(Duties d) {
    server.close();
  }
}
