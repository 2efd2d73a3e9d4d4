package dev.berth.core.error;

/**
 * The session's state is past what a restore would accept, so it is not archived and stays active.
 */
public final class SnapshotRefusedException extends BerthException {
  private static final long serialVersionUID = 1L;

  public SnapshotRefusedException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "SNAPSHOT_REFUSED";
  }
}
