package dev.berth.core.error;

/**
 * A passive request (stream, attach, status) found the session without a running runtime; passive
 * requests never restore.
 */
public final class NotRunningException extends BerthException {
  private static final long serialVersionUID = 1L;

  public NotRunningException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "INVALID_STATE";
  }
}
