package dev.berth.core.operation;

/** The recorded steps of lifecycle operations, in the order the protocols take them. */
public enum StepName {
  PLAN_RUNTIME,
  CREATE_RUNTIME,
  RESTORE_ARCHIVE,
  AWAIT_READY,
  PREPARING,
  COMMITTING,
  ABORT_CHECKPOINT,
  STOP_ADMISSION,
  CANCEL_EXECUTIONS,
  REVOKE_CREDENTIALS,
  REMOVE_RUNTIME,
  RELEASE_RESERVATION,
  APPLY_RETENTION,
  OBSERVE_RUNTIME,
  ADOPT_RUNTIME_INTENT,
  MARK_LOST
}
