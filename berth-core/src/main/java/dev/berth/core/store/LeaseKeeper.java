package dev.berth.core.store;

import java.time.Duration;

/**
 * Keeps a lease alive while its holder works under it: a reconcile pass may wait minutes on a
 * prompt drain or an archive upload, far longer than the lease's time to live, and a lease left to
 * expire meanwhile would let another control plane take the session over mid-operation (its fenced
 * writes would then fail, after the work was done twice).
 *
 * <p>Renewal keeps the lease's fencing token, so nothing the holder writes changes. A renewal that
 * finds the lease lost stops; the holder learns it from its next fenced write.
 */
public interface LeaseKeeper {

  /** Keeps nothing alive: for a holder whose work is always far shorter than the lease. */
  LeaseKeeper NONE = (lease, ttl) -> () -> {};

  /**
   * Renews {@code lease} by {@code ttl} well before it would expire, until the handle is closed.
   */
  Kept keep(Lease lease, Duration ttl);

  /** A lease being kept alive; closing it stops the renewals (idempotent). */
  interface Kept extends AutoCloseable {
    @Override
    void close();
  }
}
