package dev.berth.kubernetes.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.ServiceAccountReview.Authenticated;
import dev.berth.core.tenant.ServiceAccountReview.NotAuthenticated;
import dev.berth.core.tenant.ServiceAccountReview.Outcome;
import dev.berth.core.tenant.ServiceAccountReview.Unavailable;
import dev.berth.kubernetes.store.MockApiServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The API server is fabric8's mock server, its token authenticator simulated by {@link
 * ApiServerAuthenticator}: what is real is the TokenReview the adapter sends over HTTP and how it
 * judges the answer.
 */
class KubernetesTokenReviewTest {

  private final ApiServerAuthenticator authenticator = new ApiServerAuthenticator();
  private final MockApiServer api = MockApiServer.start(authenticator);
  private final KubernetesTokenReview review = new KubernetesTokenReview(api.client(), "berth");

  @AfterEach
  void close() {
    api.close();
  }

  @Test
  void aServiceAccountTokenForBerthsAudienceIsThatServiceAccounts() {
    authenticator.issue("sa-token", "system:serviceaccount:ci:builder", "berth");

    assertThat(review.review("sa-token"))
        .isEqualTo(new Authenticated(new ServiceAccount("ci", "builder")));
    assertThat(authenticator.reviewedTokens()).containsExactly("sa-token");
  }

  @Test
  void aTokenTheApiServerDoesNotKnowIsNotAuthenticatedWithItsError() {
    Outcome outcome = review.review("forged");

    assertThat(outcome).isInstanceOf(NotAuthenticated.class);
    assertThat(((NotAuthenticated) outcome).why()).contains("invalid bearer token");
  }

  @Test
  void aTokenForAnotherAudienceIsNotAuthenticated() {
    authenticator.issue("api-token", "system:serviceaccount:ci:builder", "https://kubernetes");

    assertThat(review.review("api-token")).isInstanceOf(NotAuthenticated.class);
  }

  @Test
  void anApiServerThatIgnoresAudiencesDoesNotVouchForBerthsAudience() {
    authenticator.issue("api-token", "system:serviceaccount:ci:builder", "https://kubernetes");
    authenticator.ignoreAudiences();

    Outcome outcome = review.review("api-token");

    assertThat(outcome).isInstanceOf(NotAuthenticated.class);
    assertThat(((NotAuthenticated) outcome).why()).contains("not for audience \"berth\"");
  }

  @Test
  void aUsersTokenIsNotAServiceAccounts() {
    authenticator.issue("alice-token", "alice", "berth");

    Outcome outcome = review.review("alice-token");

    assertThat(outcome).isInstanceOf(NotAuthenticated.class);
    assertThat(((NotAuthenticated) outcome).why()).contains("user \"alice\"");
  }

  @Test
  void aUserNamedLikeAServiceAccountOutsideTheServiceAccountsGroupIsNotOne() {
    // What a webhook or OIDC authenticator could answer: the name, but not the group.
    authenticator.issue("oidc-token", "system:serviceaccount:ci:builder", "berth");
    authenticator.withoutGroups();

    Outcome outcome = review.review("oidc-token");

    assertThat(outcome).isInstanceOf(NotAuthenticated.class);
    assertThat(((NotAuthenticated) outcome).why()).contains("not in group system:serviceaccounts");
  }

  @Test
  void aRevokedTokenIsNoLongerAuthenticated() {
    authenticator.issue("bound", "system:serviceaccount:ci:builder", "berth");
    assertThat(review.review("bound")).isInstanceOf(Authenticated.class);

    authenticator.revoke("bound");

    assertThat(review.review("bound")).isInstanceOf(NotAuthenticated.class);
  }

  @Test
  void aRefusedReviewIsUnavailableAndNamesTheClusterRoleToBind() {
    authenticator.refuseReviews(403);

    Outcome outcome = review.review("sa-token");

    assertThat(outcome).isInstanceOf(Unavailable.class);
    assertThat(((Unavailable) outcome).why())
        .contains("HTTP 403")
        .contains("system:auth-delegator")
        .as("the caller is not authenticated: no address of the API server")
        .doesNotContain("127.0.0.1");
  }

  @Test
  void anUnreachableApiServerIsUnavailableNotARefusal() {
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("http://127.0.0.1:" + freePort())
            .withRequestRetryBackoffLimit(0)
            .build();
    try (KubernetesClient nowhere = new KubernetesClientBuilder().withConfig(config).build()) {
      assertThat(new KubernetesTokenReview(nowhere, "berth").review("sa-token"))
          .isInstanceOf(Unavailable.class);
    }
  }

  private static int freePort() {
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
