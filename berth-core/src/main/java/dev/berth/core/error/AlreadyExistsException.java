package dev.berth.core.error;

/** A create named an id that is already taken. */
public final class AlreadyExistsException extends BerthException {
  private static final long serialVersionUID = 1L;

  public AlreadyExistsException(String subject) {
    super(subject + " already exists; pick another id or read the existing record");
  }

  @Override
  public String reason() {
    return "ALREADY_EXISTS";
  }
}
