package dev.berth.server.session;

/**
 * A public-API request refused for a reason of the API's own (not a domain rule of berth-core): a
 * session in a state the request cannot be served in, a runtime that failed, an If-Match that no
 * longer holds. Carries the HTTP status and the stable reason of docs/api.md.
 */
public final class RequestRefused extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String reason;

  public RequestRefused(int status, String reason, String message) {
    super(message);
    this.status = status;
    this.reason = reason;
  }

  public int status() {
    return status;
  }

  public String reason() {
    return reason;
  }
}
