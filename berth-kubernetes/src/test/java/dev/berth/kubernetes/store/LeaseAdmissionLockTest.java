package dev.berth.kubernetes.store;

import dev.berth.core.tenant.AdmissionLock;
import dev.berth.core.tenant.AdmissionLockContract;
import dev.berth.core.testing.MutableClock;
import java.util.ArrayList;
import java.util.List;

/**
 * The admission Leases pass the admission lock contract: each process a client of its own on one
 * mock API server.
 */
class LeaseAdmissionLockTest extends AdmissionLockContract {
  private MockApiServer server;
  private MutableClock storeClock;
  private final List<AutoCloseable> clients = new ArrayList<>();

  @Override
  protected void openStore(MutableClock clock) {
    server = MockApiServer.start();
    storeClock = clock;
  }

  @Override
  protected AdmissionLock newProcess() {
    var client =
        new io.fabric8.kubernetes.client.KubernetesClientBuilder()
            .withConfig(server.client().getConfiguration())
            .build();
    clients.add(client);
    return new LeaseAdmissionLock(client, MockApiServer.NAMESPACE, "test", storeClock);
  }

  @Override
  protected void closeStore() throws Exception {
    for (AutoCloseable client : clients) {
      client.close();
    }
    server.close();
  }
}
