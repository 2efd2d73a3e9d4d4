package dev.berth.core.operation;

/** The platform's attempts to change or use a session's resources. */
public enum OperationType {
  PROVISION,
  SUSPEND,
  RESUME,
  TERMINATE,
  CLEANUP,
  /** Brings a session back after its runtime was lost, or reconciles it after a store restore. */
  RECOVER,
  GC_DELETE
}
