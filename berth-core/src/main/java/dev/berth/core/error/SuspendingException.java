package dev.berth.core.error;

/**
 * The session is being suspended: the request can be served once it is a snapshot, which the
 * request then restores.
 */
public final class SuspendingException extends BerthException {
  private static final long serialVersionUID = 1L;

  public SuspendingException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "SUSPENDING";
  }
}
