package dev.berth.core.store;

import java.time.Duration;

/**
 * Work one control plane at a time does for the whole installation, such as the idle scan: with
 * several replicas sharing a store, each would otherwise probe every session's agent and race the
 * others to the same decisions.
 *
 * <p>A duty is held by one holder for a time to live; the holder renews it each time it does the
 * work, and once it stops (it died, it was partitioned away) another holder takes the duty over
 * when that time has passed. Expiry is judged by the adapter's injected clock. Thread-safe; safe
 * across processes sharing the store.
 */
public interface Duties {

  /**
   * Takes {@code duty} for {@code holder} until {@code ttl} from now, or renews it when {@code
   * holder} holds it already.
   *
   * @return whether {@code holder} holds the duty now: false while another holder's is live
   */
  boolean hold(String duty, String holder, Duration ttl);

  /**
   * Gives {@code duty} up when {@code holder} holds it, so that another holder takes it at its next
   * turn instead of waiting out the time to live (a replica that shuts down). Does nothing when
   * another holder holds it or nobody does.
   */
  void release(String duty, String holder);
}
