package dev.berth.core.agent;

import java.util.Objects;

/**
 * The agent refused a command for a reason the domain has no exception of its own for (an archive
 * it will not restore, a runtime in the wrong state, a shell that exited). {@link #refusal()} is
 * what the domain decides on; {@link #reason()} is the agent's stable reason as it spelled it (e.g.
 * {@code ARCHIVE_CORRUPT}), reported as it is and never matched.
 */
public class AgentRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Refusal refusal;
  private final String reason;

  /**
   * @param reason the agent's reason as it spelled it, for reports
   */
  public AgentRefusedException(Refusal refusal, String reason, String message) {
    super(message);
    this.refusal = Objects.requireNonNull(refusal, "refusal");
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** A refusal the domain knows by name, whose reason is spelled as that name. */
  public AgentRefusedException(Refusal refusal, String message) {
    this(refusal, refusal.name(), message);
  }

  public Refusal refusal() {
    return refusal;
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
