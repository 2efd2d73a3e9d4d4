package dev.berth.agent.contract;

import dev.berth.protocol.problem.AgentReason;
import java.nio.file.Path;

/**
 * A session's {@code contract.json} exists but cannot be read as a contract. The host refuses to
 * guess: resetting it would forget the accepted intent version or the tombstone and let a stale or
 * post-termination command through. Not a {@code BerthException} (that family is closed in core);
 * the host maps it to a 500 answer for the session.
 */
public final class CorruptContractException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CorruptContractException(Path file, String problem, Throwable cause) {
    super(message(file, problem), cause);
  }

  CorruptContractException(Path file, String problem) {
    super(message(file, problem));
  }

  private static String message(Path file, String problem) {
    return "contract file "
        + file
        + " is unreadable: "
        + problem
        + "; the host will not reset it because that would forget the session's accepted intent"
        + " version and tombstone; restore it from a backup, or remove the session directory if"
        + " the session is known to be gone";
  }

  /** The stable machine reason of this failure. */
  public AgentReason reason() {
    return AgentReason.CONTRACT_CORRUPT;
  }
}
