package dev.berth.core.error;

/**
 * The session did not get where the request needs it within the request's wait; it keeps
 * converging.
 */
public final class WaitExpiredException extends BerthException {
  private static final long serialVersionUID = 1L;

  public WaitExpiredException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "DEADLINE_EXCEEDED";
  }
}
