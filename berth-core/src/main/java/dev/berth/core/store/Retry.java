package dev.berth.core.store;

import dev.berth.core.error.VersionConflictException;
import java.util.function.Supplier;

/**
 * The one compare-and-set retry of Berth: read, decide, write with the version read, and on a
 * version conflict read again — a bounded number of times, so that a record written in a loop by
 * someone else fails loudly instead of spinning for ever.
 */
public final class Retry {

  /** Enough for every honest contention (a touch, a reconciler step) around one record. */
  public static final int ATTEMPTS = 16;

  private Retry() {}

  /**
   * Runs {@code attempt} until it returns without a {@link VersionConflictException}, at most
   * {@link #ATTEMPTS} times; each run must read what it writes afresh.
   *
   * @throws VersionConflictException the last conflict, once every attempt met one
   */
  public static <T> T onConflict(Supplier<T> attempt) {
    for (int tried = 1; ; tried++) {
      try {
        return attempt.get();
      } catch (VersionConflictException e) {
        if (tried >= ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
