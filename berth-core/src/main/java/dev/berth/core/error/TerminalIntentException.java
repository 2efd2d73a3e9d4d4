package dev.berth.core.error;

/** The session's intent is already TERMINATED, which is final: no other intent can follow it. */
public final class TerminalIntentException extends BerthException {
  private static final long serialVersionUID = 1L;

  public TerminalIntentException(String subject, String requested) {
    super(
        subject
            + " cannot change its intent to "
            + requested
            + ": termination was already requested and is final; create a new session instead");
  }

  @Override
  public String reason() {
    return "SESSION_TERMINATING";
  }
}
