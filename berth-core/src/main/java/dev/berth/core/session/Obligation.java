package dev.berth.core.session;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Cleanup still owed for a session, such as removing a runtime or retaining an archive until a
 * date. Obligations are never silently dropped: they end DONE, or stay visible as FAILED.
 *
 * @param resource what the obligation is about, e.g. {@code runtime/berth-<id>-2}
 * @param retainUntil for RETAINED obligations, when the retention ends
 */
public record Obligation(
    ObligationAction action,
    String resource,
    ObligationState state,
    String detail,
    int attempts,
    Optional<Instant> retainUntil) {

  public Obligation {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(detail, "detail");
    Objects.requireNonNull(retainUntil, "retainUntil");
    if (attempts < 0) {
      throw new IllegalArgumentException("obligation attempts must be >= 0, was " + attempts);
    }
  }

  public static Obligation pending(ObligationAction action, String resource, String detail) {
    return new Obligation(action, resource, ObligationState.PENDING, detail, 0, Optional.empty());
  }

  public boolean isOpen() {
    return state != ObligationState.DONE;
  }

  public Obligation complete(String detail) {
    return move(ObligationState.Event.COMPLETE, detail, attempts + 1, Optional.empty());
  }

  public Obligation fail(String detail) {
    return move(ObligationState.Event.FAIL, detail, attempts + 1, retainUntil);
  }

  public Obligation retain(Instant until, String detail) {
    return move(ObligationState.Event.RETAIN, detail, attempts, Optional.of(until));
  }

  public Obligation retry(String detail) {
    return move(ObligationState.Event.RETRY, detail, attempts, Optional.empty());
  }

  private Obligation move(
      ObligationState.Event event, String detail, int attemptsAfter, Optional<Instant> until) {
    ObligationState next =
        ObligationState.TABLE.next("obligation " + action + " " + resource, state, event);
    return new Obligation(action, resource, next, detail, attemptsAfter, until);
  }
}
