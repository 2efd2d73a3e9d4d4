package dev.berth.core.lifecycle;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the control plane is reconciling its store against runtimes that know newer facts (after
 * a restore of an older store backup). While active, admission is closed and nothing is deleted or
 * released.
 *
 * <p>Two things turn it on: a {@link StoreRecovery} while it runs, and a hold the control plane
 * takes when it finds its store older than what the runtimes or the archives saw. The hold is
 * released by a person who looked at what recovery found (the reconcilers would otherwise go on to
 * act on a store that may still lack records), so recovery mode outlives the recovery run.
 */
public final class RecoveryMode {
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicBoolean held = new AtomicBoolean();

  public boolean active() {
    return running.get() || held.get();
  }

  /** Whether the hold is on: recovery mode stays on until {@link #release()}. */
  public boolean held() {
    return held.get();
  }

  /**
   * Turns recovery mode on until {@link #release()}.
   *
   * @return whether this call turned the hold on (false when it was on already)
   */
  public boolean hold() {
    return held.compareAndSet(false, true);
  }

  /**
   * Releases the hold; a recovery still running keeps the mode on until it ends.
   *
   * @return whether this call released it (false when it was not held)
   */
  public boolean release() {
    return held.compareAndSet(true, false);
  }

  boolean enter() {
    return running.compareAndSet(false, true);
  }

  void leave() {
    running.set(false);
  }
}
