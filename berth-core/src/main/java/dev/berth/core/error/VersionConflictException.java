package dev.berth.core.error;

/**
 * A compare-and-swap write named a version that is no longer the stored one: someone else wrote in
 * between. Re-read, re-apply the change and write again.
 */
public final class VersionConflictException extends BerthException {
  private static final long serialVersionUID = 1L;

  public VersionConflictException(String subject, long expected, long actual) {
    super(
        subject
            + " changed concurrently: the write expected version "
            + expected
            + " but the store holds version "
            + actual
            + "; re-read and retry");
  }

  @Override
  public String reason() {
    return "CONFLICT";
  }
}
