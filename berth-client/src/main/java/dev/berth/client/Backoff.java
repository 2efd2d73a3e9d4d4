package dev.berth.client;

import java.time.Duration;

/** The contract's reconnection delay: {@code min(250 ms × 2^min(n,5), 5000 ms)}. */
final class Backoff {

  private Backoff() {}

  /** The delay before reconnection attempt {@code n} (0 for the first after a drop). */
  static Duration delay(int attempt) {
    int n = Math.max(0, Math.min(attempt, 5));
    return Duration.ofMillis(Math.min(250L << n, 5000L));
  }
}
