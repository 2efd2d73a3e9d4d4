package dev.berth.protocol.problem;

import dev.berth.core.agent.AgentRefusedException;
import dev.berth.core.agent.Refusal;
import java.util.Objects;

/**
 * The agent refused or failed a command for a reason the domain has no exception for (a shell that
 * exited, an expired lease, a runtime conflict): its problem answer as read by the control plane.
 * Carries the agent's status, its reason parsed ({@link AgentReason#UNKNOWN} for one this build
 * does not know) and as it was spelled, and its message.
 */
public final class AgentCommandFailedException extends AgentRefusedException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final AgentReason agentReason;

  /**
   * @param refusal what the domain makes of {@code reason}, as the reading adapter maps it
   * @param wireReason the reason as the agent spelled it, kept for an {@link AgentReason#UNKNOWN}
   */
  public AgentCommandFailedException(
      String subject,
      int status,
      AgentReason reason,
      String wireReason,
      Refusal refusal,
      String detail) {
    super(refusal, wireReason, subject + " answered " + status + " " + wireReason + ": " + detail);
    this.status = status;
    this.agentReason = Objects.requireNonNull(reason, "reason");
  }

  public int status() {
    return status;
  }

  /** The agent's reason parsed; {@link #reason()} is as the agent spelled it. */
  public AgentReason agentReason() {
    return agentReason;
  }
}
