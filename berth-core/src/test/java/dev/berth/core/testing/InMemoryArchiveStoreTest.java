package dev.berth.core.testing;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.ArchiveStoreContract;

/** The in-memory archive store used by the model tests passes the same contract as real ones. */
class InMemoryArchiveStoreTest extends ArchiveStoreContract {
  private InMemoryArchiveStore current;

  @Override
  protected ArchiveStore newStore(MutableClock clock) {
    current = new InMemoryArchiveStore(clock);
    return current;
  }

  @Override
  protected ArchiveStore restartStore(MutableClock clock) {
    current = current.restarted();
    return current;
  }

  @Override
  protected long leftovers() {
    return current.leftovers();
  }
}
