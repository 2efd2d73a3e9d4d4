package dev.berth.core.error;

/**
 * The session has no runtime that can serve: it failed, or its runtime is gone and is being
 * reconciled.
 */
public final class RuntimeUnavailableException extends BerthException {
  private static final long serialVersionUID = 1L;

  public RuntimeUnavailableException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "RUNTIME_UNAVAILABLE";
  }
}
