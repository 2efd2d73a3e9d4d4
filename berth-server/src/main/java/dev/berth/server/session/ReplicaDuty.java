package dev.berth.server.session;

import dev.berth.core.store.Duties;
import java.time.Duration;
import java.util.Objects;

/**
 * A periodic duty of the whole installation that this replica performs only while it holds it
 * ({@link Duties}): each turn renews the duty and does the work, or does nothing while another
 * replica holds it. The duty lives {@value #PERIODS} periods, so a holder that misses two turns (a
 * pause, a store hiccup) keeps it, and one that died is replaced within that time; one that shuts
 * down {@link #release releases} it, so that another replica takes it at its next turn.
 */
public final class ReplicaDuty {

  static final int PERIODS = 3;

  private final Duties duties;
  private final String duty;
  private final String holder;
  private final Duration ttl;

  /**
   * @param period how often the work runs; the duty lives {@value #PERIODS} of them
   */
  public ReplicaDuty(Duties duties, String duty, String holder, Duration period) {
    this.duties = Objects.requireNonNull(duties, "duties");
    this.duty = Objects.requireNonNull(duty, "duty");
    this.holder = Objects.requireNonNull(holder, "holder");
    this.ttl = period.multipliedBy(PERIODS);
  }

  /** Does {@code work} when this replica holds the duty (taking or renewing it); says whether. */
  public boolean perform(Runnable work) {
    if (!duties.hold(duty, holder, ttl)) {
      return false;
    }
    work.run();
    return true;
  }

  /** Gives the duty up if this replica holds it (it shuts down). */
  public void release() {
    duties.release(duty, holder);
  }
}
