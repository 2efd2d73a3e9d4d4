package dev.berth.core.tenant;

import dev.berth.core.session.TenantId;
import java.util.function.Supplier;

/**
 * Excludes the other control-plane processes sharing the store from admitting sessions of one
 * tenant while this one counts and creates: without it, two replicas that each see room for one
 * more session both create it, and the quota is exceeded by the number of racing creates. {@link
 * Admission} orders the threads of its own process itself; an implementation only needs to exclude
 * other processes (a PostgreSQL advisory lock). Thread-safe.
 */
@FunctionalInterface
public interface AdmissionLock {

  /** No other process shares the store (an embedded database, the in-memory store). */
  AdmissionLock SOLE_PROCESS =
      new AdmissionLock() {
        @Override
        public <T> T holding(TenantId tenant, Supplier<T> work) {
          return work.get();
        }
      };

  /**
   * Runs {@code work} while no other process sharing the store runs work for {@code tenant}; what
   * {@code work} wrote is visible to whoever holds the lock next.
   */
  <T> T holding(TenantId tenant, Supplier<T> work);
}
