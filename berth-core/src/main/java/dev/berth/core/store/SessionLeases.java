package dev.berth.core.store;

import dev.berth.core.error.StaleFenceException;
import dev.berth.core.session.SessionId;
import java.time.Duration;
import java.util.Optional;

/**
 * The per-session lease under which at most one lifecycle operation runs. Expiry is judged by the
 * adapter's injected clock. Every acquisition by a holder that does not already hold the live lease
 * issues a strictly greater {@link FencingToken}, including a takeover after expiry, so the store
 * can reject writes of a holder that lost the lease. Thread-safe; safe across processes sharing the
 * store.
 */
public interface SessionLeases {

  /**
   * Takes the lease for {@code ttl}. The current holder re-acquiring a live lease extends it and
   * keeps its token; anyone else gets a new, greater token once the lease is free or expired.
   *
   * @return the lease, or empty while another holder's lease is live
   */
  Optional<Lease> acquire(SessionId session, String holder, Duration ttl);

  /**
   * Extends a live lease by {@code ttl} from now.
   *
   * @throws StaleFenceException when the lease expired or another holder took over; the caller must
   *     stop acting for the session
   */
  Lease renew(Lease lease, Duration ttl);

  /**
   * Gives the lease up. Idempotent: releasing a lease that expired or was taken over does nothing.
   * The fencing token is never reused.
   */
  void release(Lease lease);

  /** The live lease of {@code session}, if any. */
  Optional<Lease> current(SessionId session);
}
