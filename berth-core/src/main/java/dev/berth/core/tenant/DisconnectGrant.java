package dev.berth.core.tenant;

import dev.berth.core.error.InvalidValueException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * What a session's runtime does with its workload when its control lease expires, that is when the
 * control plane stopped renewing it (STATE-MODEL §4 "Disconnection"): {@link Policy#CONTINUE} keeps
 * it for a bounded grace and then stops it; {@link Policy#STOP} stops it at once. The runtime's
 * maximum lifetime applies regardless.
 *
 * @param grace how long {@code continue} keeps the workload after the expiry, at most {@link
 *     #MAX_GRACE}; zero for {@code stop}
 */
public record DisconnectGrant(Policy policy, Duration grace) {

  /** A week: a grace is bounded, so that a runtime without its control plane ends. */
  public static final Duration MAX_GRACE = Duration.ofDays(7);

  /** The two policies; their wire names are {@code continue} and {@code stop}. */
  public enum Policy {
    CONTINUE,
    STOP;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a wire name.
     *
     * @throws InvalidValueException naming the value and the two allowed ones
     */
    public static Policy parse(String value) {
      for (Policy policy : values()) {
        if (policy.wireName().equals(value)) {
          return policy;
        }
      }
      throw new InvalidValueException(
          "disconnect policy must be \"continue\" or \"stop\", was \"" + value + "\"");
    }
  }

  public DisconnectGrant {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(grace, "grace");
    if (grace.isNegative() || grace.compareTo(MAX_GRACE) > 0) {
      throw new InvalidValueException(
          "disconnect grace must be between 0 s and "
              + MAX_GRACE.toSeconds()
              + " s (7 days), was "
              + grace.toSeconds()
              + " s; a runtime without its control plane must end");
    }
    if (policy == Policy.STOP && !grace.isZero()) {
      throw new InvalidValueException(
          "disconnect policy \"stop\" takes no grace, was "
              + grace.toSeconds()
              + " s; use \"continue\" to keep the workload for a while");
    }
  }

  /** Stop the workload as soon as the lease expires. */
  public static DisconnectGrant stop() {
    return new DisconnectGrant(Policy.STOP, Duration.ZERO);
  }

  /** Keep the workload for {@code grace} after the lease expired, then stop it. */
  public static DisconnectGrant keepFor(Duration grace) {
    return new DisconnectGrant(Policy.CONTINUE, grace);
  }

  /** E.g. {@code continue for 900 s} or {@code stop}, for messages. */
  @Override
  public String toString() {
    return policy == Policy.STOP
        ? policy.wireName()
        : policy.wireName() + " for " + grace.toSeconds() + " s";
  }
}
