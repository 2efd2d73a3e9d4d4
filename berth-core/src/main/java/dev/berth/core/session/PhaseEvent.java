package dev.berth.core.session;

/** What happens to a session's lifecycle; the phase table says which are legal where. */
public enum PhaseEvent {
  PROVISION_STARTED,
  BECAME_READY,
  SUSPEND_STARTED,
  SUSPEND_ABORTED,
  SUSPEND_COMPLETED,
  RESUME_STARTED,
  /** The runtime was lost and the session is being brought back from its last archive. */
  RECOVERY_STARTED,
  TERMINATE_STARTED,
  TERMINATE_COMPLETED,
  FAILED
}
