package dev.berth.core.approval;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.transition.TransitionTable;
import java.util.Locale;

/**
 * Where a tool call's approval stands: pending until a decision, an expiry or a cancellation ends
 * it; every end is final, so a call is decided at most once.
 */
public enum ApprovalState {
  PENDING,
  APPROVED,
  REJECTED,
  EXPIRED,
  CANCELLED;

  /** What happens to an approval. */
  public enum Event {
    APPROVE,
    REJECT,
    EXPIRE,
    CANCEL
  }

  public static final TransitionTable<ApprovalState, Event> TABLE =
      TransitionTable.of("approval", ApprovalState.class, Event.class)
          .state(PENDING, "a pending approval is approved, rejected, expires or is cancelled, once")
          .on(Event.APPROVE, APPROVED)
          .on(Event.REJECT, REJECTED)
          .on(Event.EXPIRE, EXPIRED)
          .on(Event.CANCEL, CANCELLED)
          .state(APPROVED, "a decided approval is final")
          .state(REJECTED, "a decided approval is final")
          .state(EXPIRED, "an expired approval is final")
          .state(CANCELLED, "a cancelled approval is final")
          .build();

  public boolean isFinal() {
    return this != PENDING;
  }

  /** The state's name in the API: {@code pending}, {@code approved}, … */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Reads an API state name (or the gateway protocol's upper-case status).
   *
   * @throws InvalidValueException naming the states there are
   */
  public static ApprovalState parse(String value) {
    for (ApprovalState state : values()) {
      if (state.name().equalsIgnoreCase(value)) {
        return state;
      }
    }
    throw new InvalidValueException(
        "invalid input: an approval state must be pending, approved, rejected, expired or"
            + " cancelled, was \""
            + value
            + "\"");
  }
}
