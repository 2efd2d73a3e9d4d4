package dev.berth.core.error;

/**
 * While the request waited for the session, someone asked for something else; the request is given
 * up.
 */
public final class IntentSupersededException extends BerthException {
  private static final long serialVersionUID = 1L;

  public IntentSupersededException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "CONFLICT";
  }
}
