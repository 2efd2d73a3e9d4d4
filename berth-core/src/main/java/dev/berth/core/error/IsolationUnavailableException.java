package dev.berth.core.error;

/** The installation requires an isolation its node cannot give, so it refuses new sessions. */
public final class IsolationUnavailableException extends BerthException {
  private static final long serialVersionUID = 1L;

  public IsolationUnavailableException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "ISOLATION_UNAVAILABLE";
  }
}
