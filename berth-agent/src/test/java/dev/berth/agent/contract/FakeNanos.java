package dev.berth.agent.contract;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** A monotonic nanosecond source that tests move by hand; starts far from zero, like the JDK's. */
final class FakeNanos implements LongSupplier {
  private final AtomicLong nanos = new AtomicLong(Long.MAX_VALUE - 1_000_000_000L);

  void advance(Duration by) {
    nanos.addAndGet(by.toNanos());
  }

  @Override
  public long getAsLong() {
    return nanos.get();
  }
}
