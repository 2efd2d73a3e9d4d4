package dev.berth.core.session;

import java.time.Instant;
import java.util.Objects;

/**
 * One known (or explicitly unknown) fact about a session. {@code lastTransitionTime} changes only
 * when {@code status} changes; {@code observedGeneration} is the intent version it was observed
 * against.
 */
public record Condition(
    ConditionType type,
    ConditionStatus status,
    String reason,
    String message,
    Instant lastTransitionTime,
    long observedGeneration) {

  public Condition {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(lastTransitionTime, "lastTransitionTime");
  }

  public boolean isTrue() {
    return status == ConditionStatus.TRUE;
  }
}
