package dev.berth.core.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one clock every module's tests move by hand, forwards or backwards; thread-safe. A {@link
 * Clock} (and so an {@link java.time.InstantSource}) in UTC, for code that takes either.
 */
public final class MutableClock extends Clock {
  private final AtomicReference<Instant> now;
  private final AtomicInteger reads = new AtomicInteger();

  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  public static MutableClock at(String isoInstant) {
    return new MutableClock(Instant.parse(isoInstant));
  }

  @Override
  public Instant instant() {
    reads.incrementAndGet();
    return now.get();
  }

  public void set(Instant at) {
    now.set(at);
  }

  public Instant advance(Duration by) {
    return now.updateAndGet(t -> t.plus(by));
  }

  /**
   * How often the time was read: lets a test see a periodic task still running, without sleeping.
   */
  public int reads() {
    return reads.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /** This clock in {@code zone}: the same instants, moved by the same hands. */
  @Override
  public Clock withZone(ZoneId zone) {
    if (zone.equals(ZoneOffset.UTC)) {
      return this;
    }
    MutableClock self = this;
    return new Clock() {
      @Override
      public Instant instant() {
        return self.instant();
      }

      @Override
      public ZoneId getZone() {
        return zone;
      }

      @Override
      public Clock withZone(ZoneId other) {
        return self.withZone(other);
      }
    };
  }
}
