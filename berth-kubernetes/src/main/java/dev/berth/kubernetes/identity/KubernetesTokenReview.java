package dev.berth.kubernetes.identity;

import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.ServiceAccountReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ServiceAccountReview} by the API server: one {@code TokenReview}
 * (authentication.k8s.io/v1) per question, for one audience. The token is vouched for only when the
 * review says {@code authenticated}, names this audience among the token's, and its user is a
 * service account ({@code system:serviceaccount:<namespace>:<name>}); anything else is {@link
 * NotAuthenticated}. The control plane's service account needs {@code create} on {@code
 * tokenreviews}, which the ClusterRole {@code system:auth-delegator} grants.
 *
 * <p>Why the audience is checked here too: an API server whose authenticator ignores audiences
 * answers without {@code status.audiences}, and a token minted for another service (or the API
 * server's own default audience) must not act for a tenant of Berth.
 */
public final class KubernetesTokenReview implements ServiceAccountReview {

  private static final Logger LOG = LoggerFactory.getLogger(KubernetesTokenReview.class);
  private static final String SERVICE_ACCOUNTS = "system:serviceaccounts";

  private final KubernetesClient client;
  private final String audience;

  public KubernetesTokenReview(KubernetesClient client, String audience) {
    this.client = Objects.requireNonNull(client, "client");
    this.audience = Objects.requireNonNull(audience, "audience");
    if (audience.isBlank()) {
      throw new IllegalArgumentException("the audience of service account tokens must be named");
    }
  }

  @Override
  public Outcome review(String token) {
    TokenReview answer;
    try {
      answer =
          client
              .authentication()
              .v1()
              .tokenReviews()
              .create(
                  new TokenReviewBuilder()
                      .withNewSpec()
                      .withToken(token)
                      .withAudiences(audience)
                      .endSpec()
                      .build());
    } catch (KubernetesClientException e) {
      // The caller is not authenticated yet: the answer names the status, the log the details
      // (the API server's address, its message).
      LOG.warn("a TokenReview failed", e);
      return new Unavailable(unavailable(e));
    }
    Optional<TokenReviewStatus> status = Optional.ofNullable(answer).map(TokenReview::getStatus);
    return status
        .map(this::judge)
        .orElseGet(
            () -> new Unavailable("the API server's TokenReview came back without a status"));
  }

  private Outcome judge(TokenReviewStatus status) {
    if (!Boolean.TRUE.equals(status.getAuthenticated())) {
      String error = status.getError();
      return new NotAuthenticated(
          error == null || error.isBlank()
              ? "the API server does not authenticate it"
              : "the API server does not authenticate it (" + error + ")");
    }
    List<String> audiences = status.getAudiences();
    if (audiences == null || !audiences.contains(audience)) {
      return new NotAuthenticated(
          "the token is not for audience \""
              + audience
              + "\" (it is for "
              + (audiences == null || audiences.isEmpty() ? "no audience stated" : audiences)
              + "); mint it for \""
              + audience
              + "\", for instance with a projected serviceAccountToken volume");
    }
    Optional<UserInfo> user = Optional.ofNullable(status.getUser());
    String username = user.map(UserInfo::getUsername).orElse("");
    // Defence in depth: another authenticator (a webhook, OIDC) could name a user like a service
    // account, but only the service account authenticator puts it in this group.
    boolean inGroup =
        user.map(UserInfo::getGroups).map(g -> g.contains(SERVICE_ACCOUNTS)).orElse(false);
    if (!inGroup) {
      return new NotAuthenticated(
          "it is user \""
              + username
              + "\"'s token, not a service account's (not in group "
              + SERVICE_ACCOUNTS
              + ")");
    }
    return ServiceAccount.fromUsername(username)
        .<Outcome>map(Authenticated::new)
        .orElseGet(
            () ->
                new NotAuthenticated(
                    "it is user \"" + username + "\"'s token, not a service account's"));
  }

  private static String unavailable(KubernetesClientException e) {
    if (e.getCode() == 403 || e.getCode() == 401) {
      return "the API server refused the TokenReview (HTTP "
          + e.getCode()
          + "): the control plane's service account needs create on"
          + " authentication.k8s.io tokenreviews, which the ClusterRole system:auth-delegator"
          + " grants";
    }
    return e.getCode() > 0
        ? "the API server answered the TokenReview with HTTP " + e.getCode()
        : "the API server could not be reached";
  }
}
