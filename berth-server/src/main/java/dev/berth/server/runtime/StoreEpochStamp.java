package dev.berth.server.runtime;

import dev.berth.protocol.contract.StoreEpochHeader;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * The store epoch this control plane stamps on every request to an agent ({@link
 * StoreEpochHeader}): the agents keep the highest they saw, which is how a later control plane
 * finds its store restored from an older backup. Set from the store as it advances; only grows.
 * Thread-safe.
 */
public final class StoreEpochStamp {

  private final AtomicLong epoch = new AtomicLong();

  /** A stamp never set: requests carry no epoch (tests of one adapter, which have no store). */
  public static StoreEpochStamp none() {
    return new StoreEpochStamp();
  }

  /** The epoch stamped now; 0 before the store gave one. */
  public long current() {
    return epoch.get();
  }

  /** Stamps {@code next} from now on, unless a higher epoch is stamped already. */
  public void advanceTo(long next) {
    epoch.accumulateAndGet(next, Math::max);
  }

  /** Adds the header to a request being built, when an epoch is stamped. */
  public void stamp(BiConsumer<String, String> header) {
    long now = epoch.get();
    if (now > 0) {
      header.accept(StoreEpochHeader.NAME, Long.toString(now));
    }
  }
}
