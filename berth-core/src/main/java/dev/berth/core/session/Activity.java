package dev.berth.core.session;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the idle policy looks at. {@code lastAccess} is moved only by client reads, writes and
 * attach input (never by passive streaming), and only forwards.
 */
public record Activity(
    Instant lastAccess, Optional<Instant> keepAliveUntil, Optional<Instant> busySince) {

  public Activity {
    Objects.requireNonNull(lastAccess, "lastAccess");
    Objects.requireNonNull(keepAliveUntil, "keepAliveUntil");
    Objects.requireNonNull(busySince, "busySince");
  }

  public static Activity since(Instant now) {
    return new Activity(now, Optional.empty(), Optional.empty());
  }

  /** This activity held against suspension until {@code until} (a keep-alive). */
  public Activity keptAliveUntil(Instant until) {
    return new Activity(lastAccess, Optional.of(until), busySince);
  }

  /** This activity with the runtime seen busy since {@code since}, or quiet when empty. */
  public Activity busySince(Optional<Instant> since) {
    return new Activity(lastAccess, keepAliveUntil, since);
  }

  /** This activity with {@code lastAccess} moved to {@code at} unless it is already newer. */
  public Activity touchedAt(Instant at) {
    return at.isAfter(lastAccess) ? new Activity(at, keepAliveUntil, busySince) : this;
  }
}
