package dev.berth.core.error;

/**
 * A workload type Berth knows but this installation is not configured to run (an agent type whose
 * CLI or provider is missing): 503, the message names what is missing.
 */
public final class WorkloadUnavailableException extends BerthException {
  private static final long serialVersionUID = 1L;

  public WorkloadUnavailableException(String message) {
    super(message);
  }

  @Override
  public String reason() {
    return "WORKLOAD_UNAVAILABLE";
  }
}
