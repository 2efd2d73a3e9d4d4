package dev.berth.server.auth;

import dev.berth.core.tenant.ServiceAccountReview;
import dev.berth.core.tenant.TokenDigest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Remembers a review's answer for a short while, so that a client's every request does not cost a
 * TokenReview (the API server caches its own answers for about as long). Keyed by the token's
 * SHA-256 digest: no token is kept.
 *
 * <ul>
 *   <li>A token the cluster vouched for is trusted for {@link #AUTHENTICATED} at most, and never
 *       past the expiry ({@code exp}) the token states: a bound token whose pod is deleted, or a
 *       token that expires, stops working within that time.
 *   <li>A refusal is remembered for {@link #NOT_AUTHENTICATED}, so that a client retrying a bad
 *       token does not turn into a stream of reviews.
 *   <li>An unavailable cluster is not remembered: the next request asks again.
 * </ul>
 *
 * <p>At most {@link #MAX_ENTRIES} answers are kept; when full, the expired ones are dropped, then
 * the refusals (random tokens sent to fill the cache are refusals), and only then all. At most
 * {@link #MAX_IN_FLIGHT} reviews run at once: a caller beyond that hears {@link Unavailable} at
 * once, so that a stream of made-up tokens cannot queue up requests to the API server under the
 * control plane's own identity (whose share of the API server the reconciler needs). Thread-safe.
 */
public final class CachedServiceAccountReview implements ServiceAccountReview {

  static final Duration AUTHENTICATED = Duration.ofSeconds(30);
  static final Duration NOT_AUTHENTICATED = Duration.ofSeconds(5);
  static final int MAX_ENTRIES = 10_000;
  static final int MAX_IN_FLIGHT = 16;
  private static final Pattern EXP = Pattern.compile("\"exp\"\\s*:\\s*(\\d{1,12})[,}\\s]");

  private record Entry(Outcome outcome, Instant until) {}

  private final ServiceAccountReview cluster;
  private final InstantSource clock;
  private final ConcurrentHashMap<TokenDigest, Entry> answers = new ConcurrentHashMap<>();
  private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);

  public CachedServiceAccountReview(ServiceAccountReview cluster, InstantSource clock) {
    this.cluster = Objects.requireNonNull(cluster, "cluster");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public Outcome review(String token) {
    TokenDigest key = TokenDigest.of(token);
    Instant now = clock.instant();
    Entry known = answers.get(key);
    if (known != null && now.isBefore(known.until())) {
      return known.outcome();
    }
    if (!inFlight.tryAcquire()) {
      return new Unavailable(
          MAX_IN_FLIGHT + " service account tokens are being checked already; retry in a moment");
    }
    Outcome outcome;
    try {
      outcome = cluster.review(token);
    } finally {
      inFlight.release();
    }
    Optional<Instant> until =
        switch (outcome) {
          case Authenticated a -> Optional.of(earliest(now.plus(AUTHENTICATED), expiry(token)));
          case NotAuthenticated n -> Optional.of(now.plus(NOT_AUTHENTICATED));
          case Unavailable u -> Optional.empty();
        };
    if (until.isPresent()) {
      remember(key, new Entry(outcome, until.get()), now);
    } else {
      answers.remove(key);
    }
    return outcome;
  }

  /** How many answers are kept (for tests). */
  int size() {
    return answers.size();
  }

  private void remember(TokenDigest key, Entry entry, Instant now) {
    if (answers.size() >= MAX_ENTRIES) {
      answers.values().removeIf(e -> !now.isBefore(e.until()));
      if (answers.size() >= MAX_ENTRIES) {
        answers.values().removeIf(e -> !(e.outcome() instanceof Authenticated));
      }
      if (answers.size() >= MAX_ENTRIES) {
        answers.clear();
      }
    }
    answers.put(key, entry);
  }

  private static Instant earliest(Instant a, Optional<Instant> b) {
    return b.filter(x -> x.isBefore(a)).orElse(a);
  }

  /**
   * The {@code exp} claim of a JSON Web Token, read without checking the signature: the cluster
   * just vouched for this very token, and the expiry only shortens how long that is trusted.
   */
  static Optional<Instant> expiry(String token) {
    String[] parts = token.split("\\.", -1);
    if (parts.length != 3) {
      return Optional.empty();
    }
    String claims;
    try {
      claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    Matcher m = EXP.matcher(claims + " ");
    return m.find()
        ? Optional.of(Instant.ofEpochSecond(Long.parseLong(m.group(1))))
        : Optional.empty();
  }
}
