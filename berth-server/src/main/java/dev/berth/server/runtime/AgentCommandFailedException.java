package dev.berth.server.runtime;

/**
 * The agent refused or failed a command for a reason the domain has no exception for (a shell that
 * exited, an expired lease, a runtime conflict). Carries the agent's status, reason and message.
 */
public final class AgentCommandFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String reason;

  public AgentCommandFailedException(String subject, int status, String reason, String detail) {
    super(subject + " answered " + status + " " + reason + ": " + detail);
    this.status = status;
    this.reason = reason;
  }

  public int status() {
    return status;
  }

  public String reason() {
    return reason;
  }
}
