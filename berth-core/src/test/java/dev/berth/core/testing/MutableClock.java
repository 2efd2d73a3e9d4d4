package dev.berth.core.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that tests move by hand; thread-safe. */
public final class MutableClock implements InstantSource {
  private final AtomicReference<Instant> now;

  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  public static MutableClock at(String isoInstant) {
    return new MutableClock(Instant.parse(isoInstant));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  public void set(Instant at) {
    now.set(at);
  }

  public Instant advance(Duration by) {
    return now.updateAndGet(t -> t.plus(by));
  }
}
