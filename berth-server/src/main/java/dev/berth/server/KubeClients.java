package dev.berth.server;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/** The control plane's clients of the Kubernetes API server. */
final class KubeClients {

  private KubeClients() {}

  /**
   * A client of the API server the environment names: in a pod, its service account; elsewhere the
   * kubeconfig or {@code KUBERNETES_MASTER}. It does not retry a failed call itself: each caller
   * has its own way (the reconciler's next pass; a client's retry of a 503).
   */
  static KubernetesClient fromEnvironment() {
    Config kube = Config.autoConfigure(null);
    kube.setRequestRetryBackoffLimit(0);
    return new KubernetesClientBuilder().withConfig(kube).build();
  }
}
