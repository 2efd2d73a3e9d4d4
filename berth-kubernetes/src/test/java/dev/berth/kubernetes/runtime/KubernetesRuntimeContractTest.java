package dev.berth.kubernetes.runtime;

import static org.awaitility.Awaitility.await;

import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeContract;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Kubernetes runtime keeps the runtime contract on a simulated cluster: fabric8's mock API
 * server in CRUD mode, and a simulated kubelet that runs each pod's agent as a real local process
 * (see {@link KubeletSimulator}), one cluster for the class. The runtime under test reaches the API
 * server through a relay; lost contact cuts that relay (connections reset, new ones refused) while
 * the agents run on and the kubelet keeps its own connection. A restarted control plane is a new
 * runtime with its own informer; the neighbour is another installation's runtime in the same
 * namespace.
 */
class KubernetesRuntimeContractTest extends RuntimeContract {
  private static final String INSTALLATION = "contract-installation";

  @RegisterExtension static final SimulatedCluster cluster = new SimulatedCluster();
  private KubernetesRuntime underTest;

  @Override
  protected Runtime newRuntime() throws InterruptedException {
    underTest = cluster.runtime(INSTALLATION);
    return underTest;
  }

  @Override
  protected void closeRuntime(Runtime r) {
    cluster.restore();
    cluster.closeRuntimes();
  }

  @Override
  protected String installation() {
    return INSTALLATION;
  }

  @Override
  protected Duration settlesWithin() {
    return Duration.ofSeconds(30);
  }

  @Override
  protected Runtime restarted() throws InterruptedException {
    return cluster.runtime(INSTALLATION);
  }

  @Override
  protected Optional<Neighbour> neighbour() throws InterruptedException {
    String other = "neighbour-installation";
    return Optional.of(new Neighbour(other, cluster.directRuntime(other)));
  }

  /**
   * Cuts the relay, and returns once the runtime's watch has noticed (at once: its connection was
   * reset), as a control plane would be some time into a partition.
   */
  @Override
  protected Optional<AutoCloseable> loseContact() {
    cluster.cut();
    await().atMost(Duration.ofSeconds(10)).until(() -> !underTest.observing());
    return Optional.of(cluster::restore);
  }
}
