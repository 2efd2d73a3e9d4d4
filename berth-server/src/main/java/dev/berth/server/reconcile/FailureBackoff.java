package dev.berth.server.reconcile;

import dev.berth.core.session.SessionId;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How long a session waits after a failed reconcile pass: {@code first} after the first failure,
 * doubling with every further failure in a row, never more than {@code max}; a pass that does not
 * fail starts the count again.
 *
 * <p>Why not a fixed delay: a transient failure (one lost request, an API server's brief refusal)
 * should cost a create a tenth of a second, not two; and a failure that lasts (a Role without a
 * grant, an unreachable API server) should not be retried for every session every two seconds while
 * the log fills with the same stack trace. This is the per-item exponential backoff controllers use
 * (controller-runtime's default rate limiter, for one), with a low cap because the reconciler is
 * also how a recovered backend is noticed. Thread-safe.
 */
final class FailureBackoff {

  private final Duration first;
  private final Duration max;
  private final ConcurrentHashMap<SessionId, Integer> failures = new ConcurrentHashMap<>();

  FailureBackoff(Duration first, Duration max) {
    this.first = Objects.requireNonNull(first, "first");
    this.max = Objects.requireNonNull(max, "max");
    if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
      throw new IllegalArgumentException(
          "the failure backoff must start above zero and end at or above its start, was "
              + first
              + " to "
              + max);
    }
  }

  /** The delay after one more failure of {@code id} in a row. */
  Duration failed(SessionId id) {
    int inARow = failures.merge(id, 1, (a, b) -> Math.min(a + b, 62));
    Duration delay = first;
    for (int i = 1; i < inARow && delay.compareTo(max) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(max) > 0 ? max : delay;
  }

  /** A pass over {@code id} did not fail: its next failure waits {@code first} again. */
  void passed(SessionId id) {
    failures.remove(id);
  }

  /** How many failures of {@code id} in a row were counted (for tests and logs). */
  int inARow(SessionId id) {
    return failures.getOrDefault(id, 0);
  }
}
