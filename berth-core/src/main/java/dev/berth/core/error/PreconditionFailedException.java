package dev.berth.core.error;

/** A request named an intent version (If-Match) that the session has moved past. */
public final class PreconditionFailedException extends BerthException {
  private static final long serialVersionUID = 1L;

  public PreconditionFailedException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "PRECONDITION_FAILED";
  }
}
