package dev.berth.core.error;

/** A create named an id that is already taken. */
public final class AlreadyExistsException extends BerthException {
  private static final long serialVersionUID = 1L;

  public AlreadyExistsException(String subject) {
    this(subject, "pick another id or read the existing record");
  }

  /**
   * @param subject what already exists, such as {@code service account ci/builder of tenant beta}
   * @param wayOut what the caller can do about it
   */
  public AlreadyExistsException(String subject, String wayOut) {
    super(subject + " already exists; " + wayOut);
  }

  @Override
  public String reason() {
    return "ALREADY_EXISTS";
  }
}
