package dev.berth.core.error;

/** Snapshots are turned off on this installation: a session keeps its runtime. */
public final class SnapshotUnavailableException extends BerthException {
  private static final long serialVersionUID = 1L;

  public SnapshotUnavailableException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "SNAPSHOT_UNAVAILABLE";
  }
}
