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
    return new KubernetesClientBuilder().withConfig(config()).build();
  }

  /**
   * Like {@link #fromEnvironment}, for requests a caller waits on (a TokenReview): connecting and
   * answering each get 3 s, not the client's default 10 s, so that a slow API server makes a
   * request fail fast rather than hold it.
   */
  static KubernetesClient forRequests() {
    Config kube = config();
    kube.setConnectionTimeout(3_000);
    kube.setRequestTimeout(3_000);
    return new KubernetesClientBuilder().withConfig(kube).build();
  }

  private static Config config() {
    Config kube = Config.autoConfigure(null);
    kube.setRequestRetryBackoffLimit(0);
    return kube;
  }
}
