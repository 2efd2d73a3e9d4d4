package dev.berth.core.error;

/** A value failed its own validation: the message names the field, the rule and the value. */
public final class InvalidValueException extends BerthException {
  private static final long serialVersionUID = 1L;

  public InvalidValueException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "INVALID_INPUT";
  }
}
