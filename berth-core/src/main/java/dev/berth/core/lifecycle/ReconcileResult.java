package dev.berth.core.lifecycle;

/** How one reconcile pass over a session ended. */
public enum ReconcileResult {
  /** The session matches its intent; nothing more to do until something changes. */
  CONVERGED,
  /** Progress waits on the outside world (a runtime starting, lost contact); try again later. */
  WAITING,
  /** Another holder has the session lease. */
  LEASE_BUSY,
  /** The session does not exist. */
  NOT_FOUND,
  /** The runtime knows newer facts than the store, or recovery mode is on: run recovery. */
  RECOVERY_NEEDED
}
