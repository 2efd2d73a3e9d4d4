package dev.berth.agent.contract;

import dev.berth.protocol.problem.AgentReason;

/**
 * A command arrived while the session's control lease was expired: the host closed admission until
 * the control plane renews the lease. Not a {@code BerthException} (that family is closed in core);
 * the host maps it to {@code 409 LEASE_EXPIRED}.
 */
public final class LeaseExpiredException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  LeaseExpiredException(String message) {
    super(message);
  }

  /** The stable machine reason, {@code LEASE_EXPIRED}. */
  public AgentReason reason() {
    return AgentReason.LEASE_EXPIRED;
  }
}
