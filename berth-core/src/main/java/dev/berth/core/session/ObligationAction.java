package dev.berth.core.session;

/** Cleanup that the platform may owe for a session. */
public enum ObligationAction {
  /** Remove the session's runtime and confirm it is gone. */
  REMOVE_RUNTIME,
  /** Stop issuing credentials to the session and revoke what can be revoked. */
  REVOKE_CREDENTIALS,
  /** Keep the last archive for the recovery window, then delete it. */
  RETAIN_ARCHIVE
}
