package dev.berth.core.error;

/**
 * A write carried a fencing token older than the session lease's current one: its writer lost the
 * lease (it expired and another holder took over). The writer must stop acting for the session.
 */
public final class StaleFenceException extends BerthException {
  private static final long serialVersionUID = 1L;

  public StaleFenceException(String subject, long offered, long current) {
    super(
        subject
            + " rejected a write fenced with token "
            + offered
            + ": the session lease is now at token "
            + current
            + "; the writer lost the lease and must stop");
  }

  @Override
  public String reason() {
    return "LEASE_LOST";
  }
}
