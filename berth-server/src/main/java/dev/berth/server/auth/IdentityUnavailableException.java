package dev.berth.server.auth;

/**
 * A bearer token could not be checked: it is not one of Berth's, and the cluster that would say
 * which service account it belongs to could not be asked or refused to answer. Nothing is known of
 * the caller, so the answer is 503, not 401: retrying later may succeed. The message never contains
 * the token.
 */
public final class IdentityUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  IdentityUnavailableException(String why) {
    super(
        "the bearer token is not one of Berth's and the cluster could not check it: "
            + why
            + "; retry later, or use a Berth token");
  }

  /** The stable machine reason. */
  public String reason() {
    return "IDENTITY_UNAVAILABLE";
  }
}
