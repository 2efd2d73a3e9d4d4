package dev.berth.core.error;

/** The named record does not exist (or is not visible to the caller, which looks the same). */
public final class NotFoundException extends BerthException {
  private static final long serialVersionUID = 1L;

  public NotFoundException(String subject) {
    super(subject + " not found");
  }

  @Override
  public String reason() {
    return "NOT_FOUND";
  }
}
