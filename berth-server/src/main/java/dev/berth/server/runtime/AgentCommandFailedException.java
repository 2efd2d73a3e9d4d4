package dev.berth.server.runtime;

/**
 * The agent refused or failed a command for a reason the domain has no exception for (a shell that
 * exited, an expired lease, a runtime conflict). Carries the agent's status, reason and message.
 */
public final class AgentCommandFailedException extends dev.berth.core.agent.AgentRefusedException {
  private static final long serialVersionUID = 1L;

  private final int status;

  public AgentCommandFailedException(String subject, int status, String reason, String detail) {
    super(reason, subject + " answered " + status + " " + reason + ": " + detail);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
