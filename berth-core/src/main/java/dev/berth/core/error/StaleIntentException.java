package dev.berth.core.error;

/**
 * A command or write carried an intent version older than the one already accepted. Stale commands
 * are rejected without side effects; the caller should re-read the session and decide again from
 * its current intent.
 */
public final class StaleIntentException extends BerthException {
  private static final long serialVersionUID = 1L;

  private final long offered;
  private final long current;

  public StaleIntentException(String subject, long offered, long current) {
    super(
        subject
            + " rejected intent version "
            + offered
            + ": version "
            + current
            + " was already accepted; re-read the session and retry against its current intent");
    this.offered = offered;
    this.current = current;
  }

  public long offered() {
    return offered;
  }

  public long current() {
    return current;
  }

  @Override
  public String reason() {
    return "STALE_INTENT";
  }
}
