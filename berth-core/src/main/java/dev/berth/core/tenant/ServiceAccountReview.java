package dev.berth.core.tenant;

import java.util.Objects;

/**
 * Asks the cluster which service account a bearer token was issued to (a Kubernetes TokenReview for
 * the installation's audience). Berth's own tokens are never sent here: only tokens that are
 * neither the administrator's nor a tenant's, and look like a JSON Web Token.
 *
 * <p>Every answer is one of three {@link Outcome}s; none is an exception, so that the caller's
 * switch says what a 401 and what a 503 is.
 */
public interface ServiceAccountReview {

  /** What the cluster says of {@code token}. */
  Outcome review(String token);

  /** The three answers of a review. */
  sealed interface Outcome {}

  /** The cluster vouches that the token is {@code account}'s, for this installation's audience. */
  record Authenticated(ServiceAccount account) implements Outcome {
    public Authenticated {
      Objects.requireNonNull(account, "account");
    }
  }

  /**
   * The cluster does not vouch for the token: unknown, expired, bound to a deleted pod, for another
   * audience, or not a service account's.
   */
  record NotAuthenticated(String why) implements Outcome {
    public NotAuthenticated {
      Objects.requireNonNull(why, "why");
    }
  }

  /** The cluster could not be asked, or refused to answer: nothing is known of the token. */
  record Unavailable(String why) implements Outcome {
    public Unavailable {
      Objects.requireNonNull(why, "why");
    }
  }
}
