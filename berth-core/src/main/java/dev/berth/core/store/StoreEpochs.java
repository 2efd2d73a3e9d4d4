package dev.berth.core.store;

import java.time.Instant;
import java.util.Optional;

/**
 * The store's epoch: one number for the whole installation that only grows. Every control plane
 * advances it when it starts and one replica advances it periodically while they run; it goes with
 * every command to the runtimes and with every archive, which keep the highest they saw. A store
 * whose epoch is below such a high-water mark was restored from an older backup: the control plane
 * then enters recovery mode instead of acting on what it holds (docs/operations.md, "Restoring a
 * store backup").
 *
 * <p>Kept in the store itself, so that restoring the store restores the epoch with it: that is what
 * makes the restore visible. Thread-safe; safe across processes sharing the store.
 */
public interface StoreEpochs {

  /** The epoch now: 0 for a store that was never given one. */
  long current();

  /** Advances the epoch by one, durably, and returns the new epoch. */
  long advance();

  /**
   * Raises the epoch to at least {@code floor}, durably; never lowers it.
   *
   * @return the epoch now ({@code floor}, or more when it was higher already)
   */
  long raise(long floor);

  /**
   * Since when the installation is in recovery mode, if it is. Kept beside the epoch because the
   * epoch is raised past every high-water mark as soon as recovery begins (so no fencing token is
   * issued twice): a restart during recovery would otherwise no longer see why it began.
   */
  Optional<Instant> recoverySince();

  /**
   * Records that recovery mode began at {@code since}, durably; when it is on already, keeps the
   * earlier time.
   *
   * @return since when recovery mode is on
   */
  Instant beginRecovery(Instant since);

  /** Records that a person ended recovery mode. Idempotent. */
  void endRecovery();
}
