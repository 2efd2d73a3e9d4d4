package dev.berth.server;

import dev.berth.core.tenant.ServiceAccountReview;
import dev.berth.kubernetes.identity.KubernetesTokenReview;
import dev.berth.server.auth.CachedServiceAccountReview;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * {@code --service-account-tokens}: the TokenReview that lets a Kubernetes service account token
 * act for the tenant listing its service account, asked of the API server the environment names,
 * each answer remembered briefly ({@link CachedServiceAccountReview}).
 */
final class ServiceAccountTokens {

  private ServiceAccountTokens() {}

  /**
   * The review, when the backends accept service account tokens; its client is added to {@code
   * resources} to be closed with the server.
   */
  static Optional<ServiceAccountReview> open(
      ServerConfig.Backends backends, InstantSource clock, List<AutoCloseable> resources) {
    if (backends.serviceAccountAudience().isEmpty()) {
      return Optional.empty();
    }
    KubernetesClient client = KubeClients.forRequests();
    resources.add(0, client);
    return Optional.of(
        new CachedServiceAccountReview(
            new KubernetesTokenReview(client, backends.serviceAccountAudience().get()), clock));
  }
}
