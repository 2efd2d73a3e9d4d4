package dev.berth.core.idle;

import java.time.Duration;
import java.util.Objects;

/**
 * The idle policy's timings.
 *
 * @param idleAfter no client access for this long makes a session {@code idle} (it keeps its
 *     runtime)
 * @param suspendAfter no client access for this long suspends it, unless something holds it
 * @param maxBusy how long a running execution or a busy shell can hold a session past {@code
 *     suspendAfter}
 * @param maxKeepAlive the longest a single keep-alive may hold a session
 */
public record IdleSettings(
    Duration idleAfter, Duration suspendAfter, Duration maxBusy, Duration maxKeepAlive) {

  public IdleSettings {
    positive("idleAfter", idleAfter);
    positive("suspendAfter", suspendAfter);
    positive("maxBusy", maxBusy);
    positive("maxKeepAlive", maxKeepAlive);
    if (suspendAfter.compareTo(idleAfter) < 0) {
      throw new IllegalArgumentException(
          "suspendAfter ("
              + suspendAfter
              + ") must not be shorter than idleAfter ("
              + idleAfter
              + "): a session is idle before it is suspended");
    }
  }

  /** 10 minutes to idle, 60 to suspend, busy work holds it up to 4 hours, keep-alives up to 4. */
  public static IdleSettings defaults() {
    return new IdleSettings(
        Duration.ofMinutes(10), Duration.ofMinutes(60), Duration.ofHours(4), Duration.ofHours(4));
  }

  private static void positive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
