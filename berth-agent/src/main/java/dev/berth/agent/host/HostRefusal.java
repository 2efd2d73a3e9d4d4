package dev.berth.agent.host;

import dev.berth.protocol.problem.AgentReason;
import java.util.Objects;

/**
 * A request the session host refuses for a reason of its own (not a domain rule of berth-core): the
 * runtime stopped, the control lease expired, another incarnation is hosted, a body is too large.
 * Carries the HTTP status and the stable machine reason the agent protocol documents.
 */
public final class HostRefusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final AgentReason reason;

  public HostRefusal(int status, AgentReason reason, String message) {
    super(message);
    if (reason == AgentReason.UNKNOWN) {
      throw new IllegalArgumentException(
          "a refusal names a reason of the protocol; UNKNOWN is only ever read, never answered");
    }
    this.status = status;
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  public static HostRefusal shellExited(String runtime) {
    return new HostRefusal(
        503,
        AgentReason.SHELL_EXITED,
        "no live shell: runtime "
            + runtime
            + " is no longer running (its host stopped it, or it is stopping), so no shell is"
            + " started in it; its output stays readable. A new runtime of the session gets a new"
            + " shell");
  }

  public static HostRefusal tooLarge(String what, long size, long limit) {
    return new HostRefusal(
        413,
        AgentReason.PAYLOAD_TOO_LARGE,
        what
            + " is "
            + size
            + " bytes; the limit is "
            + limit
            + " bytes; send it in smaller parts");
  }

  public int status() {
    return status;
  }

  public AgentReason reason() {
    return reason;
  }
}
