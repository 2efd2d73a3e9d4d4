package dev.berth.server.reconcile;

import dev.berth.core.error.StaleFenceException;
import dev.berth.core.store.Lease;
import dev.berth.core.store.LeaseKeeper;
import dev.berth.core.store.SessionLeases;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the session leases of running reconcile passes alive: each kept lease is renewed every
 * third of its time to live, so two renewals may fail (a store that hiccups) before it expires.
 *
 * <p>A renewal that finds the lease lost ({@link StaleFenceException}: it expired or another
 * control plane took it) stops for good; the pass learns it at its next fenced write. Any other
 * failure (the store unreachable) is logged and the next renewal tried: the lease may well still be
 * live.
 */
public final class LeaseRenewer implements LeaseKeeper, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseRenewer.class);

  private final SessionLeases leases;
  private final ScheduledExecutorService timer;

  public LeaseRenewer(SessionLeases leases) {
    this.leases = Objects.requireNonNull(leases, "leases");
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "berth-lease-renewer");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public Kept keep(Lease lease, Duration ttl) {
    Renewal renewal = new Renewal(lease, ttl);
    long period = Math.max(1, ttl.toMillis() / 3);
    renewal.start(timer.scheduleAtFixedRate(renewal, period, period, TimeUnit.MILLISECONDS));
    return renewal;
  }

  /** One kept lease: the newest renewal of it, and its schedule. */
  private final class Renewal implements Runnable, Kept {
    private final Duration ttl;
    private volatile Lease current;
    private volatile @Nullable ScheduledFuture<?> schedule;
    private volatile boolean stopped;

    Renewal(Lease lease, Duration ttl) {
      this.current = lease;
      this.ttl = ttl;
    }

    void start(ScheduledFuture<?> scheduled) {
      schedule = scheduled;
      if (stopped) {
        scheduled.cancel(false);
      }
    }

    @Override
    public void run() {
      if (stopped) {
        return;
      }
      Lease lease = current;
      try {
        current = leases.renew(lease, ttl);
      } catch (StaleFenceException e) {
        LOG.warn(
            "lease of session {} (holder {}) was lost while a pass ran; renewals stop: {}",
            lease.sessionId().value(),
            lease.holder(),
            e.getMessage());
        close();
      } catch (RuntimeException e) {
        LOG.warn(
            "could not renew the lease of session {}; trying again: {}",
            lease.sessionId().value(),
            e.toString());
      }
    }

    @Override
    public void close() {
      stopped = true;
      ScheduledFuture<?> scheduled = schedule;
      if (scheduled != null) {
        scheduled.cancel(false);
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
