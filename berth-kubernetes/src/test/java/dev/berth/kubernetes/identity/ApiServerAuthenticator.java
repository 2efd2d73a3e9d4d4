package dev.berth.kubernetes.identity;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The API server's token authenticator, simulated for tests (no Kubernetes API server can run
 * here): fabric8's CRUD mock server keeps objects, but a TokenReview is a question, not an object.
 * This dispatcher answers {@code POST /apis/authentication.k8s.io/v1/tokenreviews} from a table of
 * tokens the test issued, each for a username and audiences, as the real authenticator would: a
 * token it does not know, or one for none of the requested audiences, is not authenticated; the
 * audiences it answers are the intersection. Everything else goes to the CRUD dispatcher.
 */
public final class ApiServerAuthenticator extends KubernetesCrudDispatcher {

  static final String PATH = "/apis/authentication.k8s.io/v1/tokenreviews";

  private record Issued(String username, List<String> audiences) {}

  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private final Map<String, Issued> tokens = new ConcurrentHashMap<>();
  private final List<String> reviewedTokens = new CopyOnWriteArrayList<>();
  private final AtomicInteger refusal = new AtomicInteger();
  private volatile boolean audienceUnaware;
  private volatile boolean groupless;

  /**
   * Makes {@code token} authenticate as {@code username} for {@code audiences}, in the groups the
   * API server would give that user.
   */
  public void issue(String token, String username, String... audiences) {
    tokens.put(token, new Issued(username, List.of(audiences)));
  }

  /** Forgets {@code token}, as when its pod is deleted or it expires. */
  public void revoke(String token) {
    tokens.remove(token);
  }

  /** From now on every review is refused with {@code status} (0: answered again). */
  public void refuseReviews(int status) {
    refusal.set(status);
  }

  /**
   * From now on the authenticator ignores audiences, as some do: a known token is authenticated
   * whatever audiences were asked for, and the answer states none.
   */
  public void ignoreAudiences() {
    audienceUnaware = true;
  }

  /** From now on answers name the user but no group, as an authenticator of other users may. */
  public void withoutGroups() {
    groupless = true;
  }

  /** Every token a review was asked for, in order. */
  public List<String> reviewedTokens() {
    return List.copyOf(reviewedTokens);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    if (!"POST".equals(request.getMethod()) || !request.getPath().startsWith(PATH)) {
      return super.dispatch(request);
    }
    TokenReview review =
        JSON.unmarshal(
            new String(request.getBody().getBytes(), StandardCharsets.UTF_8), TokenReview.class);
    String token = review.getSpec().getToken();
    reviewedTokens.add(token);
    int refused = refusal.get();
    if (refused != 0) {
      return new MockResponse()
          .setResponseCode(refused)
          .setBody(
              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":"
                  + refused
                  + ",\"message\":\"tokenreviews is forbidden\"}");
    }
    review.setStatus(status(token, review.getSpec().getAudiences()));
    review.getSpec().setToken(null);
    return new MockResponse().setResponseCode(201).setBody(JSON.asJson(review));
  }

  private io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus status(
      String token, List<String> requested) {
    Issued issued = tokens.get(token);
    if (issued == null) {
      return new TokenReviewStatusBuilder()
          .withAuthenticated(false)
          .withError("invalid bearer token")
          .build();
    }
    if (audienceUnaware) {
      return new TokenReviewStatusBuilder()
          .withAuthenticated(true)
          .withNewUser()
          .withUsername(issued.username())
          .withGroups(groups(issued.username()))
          .endUser()
          .build();
    }
    List<String> wanted = requested == null || requested.isEmpty() ? issued.audiences() : requested;
    List<String> both = wanted.stream().filter(issued.audiences()::contains).toList();
    if (both.isEmpty()) {
      return new TokenReviewStatusBuilder()
          .withAuthenticated(false)
          .withError(
              "token audiences " + issued.audiences() + " is invalid for the target audiences")
          .build();
    }
    return new TokenReviewStatusBuilder()
        .withAuthenticated(true)
        .withAudiences(both)
        .withNewUser()
        .withUsername(issued.username())
        .withGroups(groups(issued.username()))
        .endUser()
        .build();
  }

  /** The groups the API server gives a user: a service account's include its namespace's. */
  private List<String> groups(String username) {
    if (groupless) {
      return List.of();
    }
    String prefix = "system:serviceaccount:";
    if (!username.startsWith(prefix) || username.split(":").length != 4) {
      return List.of("system:authenticated");
    }
    String namespace = username.split(":")[2];
    return List.of(
        "system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated");
  }
}
