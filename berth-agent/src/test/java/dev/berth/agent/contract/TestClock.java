package dev.berth.agent.contract;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** A wall clock that tests move by hand, forwards or backwards; thread-safe. */
final class TestClock extends Clock {
  private final AtomicReference<Instant> now;
  private final AtomicInteger reads = new AtomicInteger();

  TestClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  static TestClock at(String isoInstant) {
    return new TestClock(Instant.parse(isoInstant));
  }

  Instant advance(Duration by) {
    return now.updateAndGet(t -> t.plus(by));
  }

  void set(Instant to) {
    now.set(to);
  }

  /**
   * How often the time was read: lets a test see a periodic task still running, without sleeping.
   */
  int reads() {
    return reads.get();
  }

  @Override
  public Instant instant() {
    reads.incrementAndGet();
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("tests use UTC only");
  }
}
