package dev.berth.core.agent;

import java.util.Objects;

/**
 * The agent refused a command for a reason the domain has no exception of its own for (an archive
 * it will not restore, a runtime in the wrong state, a shell that exited). {@link #reason()} is the
 * agent's stable reason, e.g. {@code ARCHIVE_CORRUPT}; the reconciler decides what it means for the
 * session.
 */
public class AgentRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String reason;

  public AgentRefusedException(String reason, String message) {
    super(message);
    this.reason = reason;
  }

  public String reason() {
    return reason;
  }

  /** The message it was made with: never null, as the constructor takes one. */
  @Override
  public String getMessage() {
    return Objects.requireNonNull(super.getMessage());
  }
}
