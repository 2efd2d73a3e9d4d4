package dev.berth.server;

import dev.berth.kubernetes.store.ConfigMapApprovals;
import dev.berth.kubernetes.store.ConfigMapClaims;
import dev.berth.kubernetes.store.ConfigMapInstallation;
import dev.berth.kubernetes.store.ConfigMapSessionStore;
import dev.berth.kubernetes.store.ConfigMapTenantDirectory;
import dev.berth.kubernetes.store.LeaseAdmissionLock;
import dev.berth.kubernetes.store.LeaseDuties;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;

/**
 * The backends of {@code --store kubernetes://NAMESPACE}: every record the server keeps, in
 * ConfigMaps and Leases of that namespace (berth-kubernetes' store package), through one client of
 * the API server the environment names, as the Kubernetes runtime's is found ({@link KubeClients}):
 * in a pod its service account, elsewhere the kubeconfig. The store suits either runtime; with the
 * local runtime the server claims it for itself, as on a shared SQL store.
 */
final class KubernetesBackends {

  private KubernetesBackends() {}

  /**
   * Reads the namespace's installation id (recording a new one when it has none) and opens every
   * part on it.
   *
   * @throws dev.berth.kubernetes.store.KubernetesStoreException when the API server cannot be
   *     asked, or refuses (the service account lacks a permission)
   */
  static ServerBackends open(ServerConfig config, StoreChoice.Kubernetes choice, Clock clock) {
    KubernetesClient client = KubeClients.fromEnvironment();
    try {
      String namespace = choice.namespace();
      String installation =
          ConfigMapInstallation.readOrRecord(client, namespace, Installation::mint);
      String holder = ServerBackends.holder(config, installation);
      ConfigMapClaims claims = new ConfigMapClaims(client, namespace, installation, clock);
      AutoCloseable claim =
          ServerBackends.claimRuntime(
              config.backends().runtime(),
              (shared, refusal) ->
                  claims.claim(ServerBackends.RUNTIME_CLAIM, holder, shared, refusal));
      ConfigMapApprovals approvals = new ConfigMapApprovals(client, namespace, installation);
      return new ServerBackends(
          new ConfigMapSessionStore(client, namespace, installation, clock),
          new ConfigMapTenantDirectory(client, namespace, installation),
          new LeaseAdmissionLock(client, namespace, installation, clock),
          new LeaseDuties(client, namespace, installation, clock),
          new ServerBackends.StoredApprovals(approvals, approvals::countAllPending),
          installation,
          holder,
          claim,
          client);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }
}
