package dev.berth.agent.host;

/**
 * A request the session host refuses for a reason of its own (not a domain rule of berth-core): the
 * shell exited, the control lease expired, another incarnation is hosted, a body is too large.
 * Carries the HTTP status and the stable machine reason the agent protocol documents.
 */
public final class HostRefusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String reason;

  public HostRefusal(int status, String reason, String message) {
    super(message);
    this.status = status;
    this.reason = reason;
  }

  public static HostRefusal shellExited(String runtime) {
    return new HostRefusal(
        503,
        "SHELL_EXITED",
        "no live shell: the shell of "
            + runtime
            + " has exited; its output stays readable, start a new runtime to get a shell");
  }

  public static HostRefusal tooLarge(String what, long size, long limit) {
    return new HostRefusal(
        413,
        "PAYLOAD_TOO_LARGE",
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

  public String reason() {
    return reason;
  }
}
