package dev.berth.core.session;

/** Why a session or operation failed, specific enough to say what to fix. */
public enum FailureReason {
  SCHEDULING,
  IMAGE_POLICY,
  IMAGE_PULL,
  STORAGE,
  RUNTIME_HEALTH,
  CREDENTIAL_REFERENCE,
  UNSUPPORTED_CAPABILITY,
  ARCHIVE_CORRUPT,
  ARCHIVE_UNSAFE,
  ARCHIVE_MISSING,
  RUNTIME_LOST,
  DEADLINE_EXCEEDED,
  STALE_INTENT
}
