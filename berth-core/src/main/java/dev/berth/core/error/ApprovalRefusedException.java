package dev.berth.core.error;

import java.util.Objects;

/** A decision on an approval is refused, for the reason {@link #why()} names. */
public final class ApprovalRefusedException extends BerthException {
  private static final long serialVersionUID = 1L;

  /** Why a decision is refused; each is a stable reason of the public API. */
  public enum Why {
    /** No such approval of this session (or of a session the caller does not see). */
    APPROVAL_NOT_FOUND,
    /** It was approved, rejected or cancelled already. */
    APPROVAL_DECIDED,
    /** Its time ran out before the decision. */
    APPROVAL_EXPIRED
  }

  private final Why why;

  public ApprovalRefusedException(Why why, String message) {
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
