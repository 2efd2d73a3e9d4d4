package dev.berth.server.auth;

/**
 * A request carried no usable token: none at all, a malformed {@code Authorization} header, or a
 * token that matches neither the administrator's nor any tenant's (never issued, or revoked). The
 * message never contains the token.
 */
public final class UnauthenticatedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The message every variant starts with, as documented in the API reference. */
  public static final String BASE_MESSAGE = "missing or unknown bearer token";

  UnauthenticatedException(String detail) {
    super(
        BASE_MESSAGE
            + ": "
            + detail
            + "; send 'Authorization: Bearer <token>' with the admin token or a tenant token");
  }

  /** The stable machine reason. */
  public String reason() {
    return "UNAUTHENTICATED";
  }
}
