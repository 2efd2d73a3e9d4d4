package dev.berth.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.ServiceAccountReview;
import dev.berth.core.tenant.ServiceAccountReview.Authenticated;
import dev.berth.core.tenant.ServiceAccountReview.NotAuthenticated;
import dev.berth.core.tenant.ServiceAccountReview.Unavailable;
import dev.berth.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cache over a scripted cluster: the answers are the test's, the timing is the cache's. */
class CachedServiceAccountReviewTest {
  private static final Instant NOW = Instant.parse("2026-12-03T10:00:00Z");
  private static final ServiceAccount BUILDER = new ServiceAccount("ci", "builder");

  private final MutableClock clock = MutableClock.at(NOW.toString());
  private final List<String> asked = new ArrayList<>();
  private ServiceAccountReview.Outcome answer = new Authenticated(BUILDER);
  private final CachedServiceAccountReview cache =
      new CachedServiceAccountReview(
          token -> {
            asked.add(token);
            return answer;
          },
          clock);

  private static String jwt(String claims) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8))
        + "."
        + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8))
        + ".c2ln";
  }

  @Test
  void aVouchedForTokenIsTrustedForThirtySecondsThenAskedAgain() {
    String token = jwt("{\"sub\":\"x\"}");

    cache.review(token);
    clock.advance(Duration.ofSeconds(29));
    assertThat(cache.review(token)).isEqualTo(new Authenticated(BUILDER));
    assertThat(asked).hasSize(1);

    clock.advance(Duration.ofSeconds(1));
    cache.review(token);
    assertThat(asked).hasSize(2);
  }

  @Test
  void aTokenExpiringSoonerIsTrustedOnlyUntilItsExpiry() {
    long exp = NOW.plusSeconds(10).getEpochSecond();
    String token = jwt("{\"aud\":[\"berth\"],\"exp\":" + exp + ",\"iat\":1}");

    cache.review(token);
    clock.advance(Duration.ofSeconds(9));
    cache.review(token);
    assertThat(asked).hasSize(1);

    clock.advance(Duration.ofSeconds(1));
    answer = new NotAuthenticated("token has expired");
    assertThat(cache.review(token)).isEqualTo(new NotAuthenticated("token has expired"));
    assertThat(asked).hasSize(2);
  }

  @Test
  void aRefusalIsRememberedForFiveSeconds() {
    answer = new NotAuthenticated("invalid bearer token");
    String token = jwt("{}");

    cache.review(token);
    clock.advance(Duration.ofSeconds(4));
    cache.review(token);
    assertThat(asked).hasSize(1);

    clock.advance(Duration.ofSeconds(1));
    cache.review(token);
    assertThat(asked).hasSize(2);
  }

  @Test
  void anUnavailableClusterIsAskedAgainAtTheNextRequest() {
    answer = new Unavailable("connection refused");
    String token = jwt("{}");

    cache.review(token);
    cache.review(token);

    assertThat(asked).hasSize(2);
    assertThat(cache.size()).isZero();
  }

  @Test
  void aFullCacheDropsWhatExpiredFirstAndNeverGrowsPastItsBound() {
    for (int i = 0; i < CachedServiceAccountReview.MAX_ENTRIES + 50; i++) {
      cache.review(jwt("{\"n\":" + i + "}"));
    }

    assertThat(cache.size()).isLessThanOrEqualTo(CachedServiceAccountReview.MAX_ENTRIES);
  }

  @Test
  void aFullCacheDropsRefusalsBeforeTheTokensItVouchedFor() {
    String vouched = jwt("{\"sub\":\"builder\"}");
    cache.review(vouched);
    answer = new NotAuthenticated("invalid bearer token");
    for (int i = 0; i < CachedServiceAccountReview.MAX_ENTRIES + 10; i++) {
      cache.review(jwt("{\"made-up\":" + i + "}"));
    }
    int asked = this.asked.size();

    answer = new Unavailable("must not be asked");
    assertThat(cache.review(vouched)).isEqualTo(new Authenticated(BUILDER));
    assertThat(this.asked).hasSize(asked);
  }

  @Test
  void reviewsBeyondTheInFlightLimitAreUnavailableAtOnceInsteadOfQueueing() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch started =
        new java.util.concurrent.CountDownLatch(CachedServiceAccountReview.MAX_IN_FLIGHT);
    CachedServiceAccountReview slow =
        new CachedServiceAccountReview(
            token -> {
              started.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return new Authenticated(BUILDER);
            },
            clock);
    List<Thread> waiting = new ArrayList<>();
    for (int i = 0; i < CachedServiceAccountReview.MAX_IN_FLIGHT; i++) {
      String token = jwt("{\"n\":" + i + "}");
      waiting.add(Thread.ofVirtual().start(() -> slow.review(token)));
    }
    assertThat(started.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

    ServiceAccountReview.Outcome beyond = slow.review(jwt("{\"n\":\"one too many\"}"));

    release.countDown();
    for (Thread t : waiting) {
      t.join();
    }
    assertThat(beyond).isInstanceOf(Unavailable.class);
    assertThat(((Unavailable) beyond).why()).contains("retry in a moment");
    assertThat(slow.review(jwt("{\"n\":\"after\"}"))).isInstanceOf(Authenticated.class);
  }

  @Test
  void theExpiryIsReadFromTheClaimsAndAbsentWhenTheTokenHasNone() {
    assertThat(CachedServiceAccountReview.expiry(jwt("{\"exp\":1764756000}")))
        .contains(Instant.ofEpochSecond(1764756000));
    assertThat(CachedServiceAccountReview.expiry(jwt("{\"sub\":\"x\"}"))).isEmpty();
    assertThat(CachedServiceAccountReview.expiry("not.a-jwt!.x")).isEmpty();
  }
}
