package dev.berth.core.error;

/**
 * The session's agent could not be reached. This is not evidence that the runtime is gone: the
 * control plane marks the runtime's observation Unknown and keeps its reservation.
 */
public final class AgentUnreachableException extends BerthException {
  private static final long serialVersionUID = 1L;

  public AgentUnreachableException(String subject, String detail) {
    super(subject + " is unreachable: " + detail);
  }

  public AgentUnreachableException(String subject, String detail, Throwable cause) {
    super(subject + " is unreachable: " + detail, cause);
  }

  @Override
  public String reason() {
    return "AGENT_UNREACHABLE";
  }
}
