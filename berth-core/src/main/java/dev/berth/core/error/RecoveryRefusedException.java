package dev.berth.core.error;

import java.util.Objects;

/** A deleted session cannot be brought back, for the reason {@link #why()} names. */
public final class RecoveryRefusedException extends BerthException {
  private static final long serialVersionUID = 1L;

  /** Why a recovery is refused; each is a stable reason of the public API. */
  public enum Why {
    /** The session is not deleted (or its deletion has not finished). */
    INVALID_STATE,
    /** It was recovered before, as the session the message names. */
    ALREADY_RECOVERED,
    /** It was never suspended, so no archive of it exists. */
    NOT_RECOVERABLE,
    /** Its last archive is no longer kept. */
    RECOVERY_WINDOW_ENDED
  }

  private final Why why;

  public RecoveryRefusedException(Why why, String message) {
    super(message);
    this.why = Objects.requireNonNull(why, "why");
  }

  public Why why() {
    return why;
  }

  @Override
  public String reason() {
    return why.name();
  }
}
