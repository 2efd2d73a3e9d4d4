package dev.berth.server.store.sql;

import dev.berth.core.error.InvalidValueException;
import java.time.Instant;

/**
 * How the SQLite tables hold instants: INTEGER epoch nanoseconds (UTC), so that they sort and
 * compare exactly in SQL and keep the nanosecond precision of the domain's instants, which TEXT
 * timestamps or SQLite's own date functions would not.
 */
final class EpochNanos {

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private EpochNanos() {}

  /** Epoch nanoseconds: exact and sortable, for instants from 1677-09-21 to 2262-04-11. */
  static long nanos(Instant t) {
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), NANOS_PER_SECOND), t.getNano());
    } catch (ArithmeticException e) {
      throw new InvalidValueException(
          "instant " + t + " is outside what the store can hold (1677-09-21 to 2262-04-11)");
    }
  }

  static Instant instant(long epochNanos) {
    return Instant.ofEpochSecond(
        Math.floorDiv(epochNanos, NANOS_PER_SECOND), Math.floorMod(epochNanos, NANOS_PER_SECOND));
  }
}
