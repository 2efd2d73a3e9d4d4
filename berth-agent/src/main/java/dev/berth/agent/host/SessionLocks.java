package dev.berth.agent.host;

import dev.berth.core.session.SessionId;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * One lock per session, held only while someone holds or waits for it: commands on one session are
 * serialized, sessions never wait for each other, and a session's entry goes once its last holder
 * leaves, so that the map does not grow with every session the host ever served.
 *
 * <p>As Temporal's {@code WorkflowRunLockManager}: taking the lock counts the taker in (under the
 * map's per-key atomicity, {@link ConcurrentMap#compute}), and leaving unlocks first and counts out
 * second, removing the entry at zero. A count that includes the waiters means an entry is removed
 * only when no thread holds or waits for its lock, so a later taker's fresh lock excludes no one it
 * should.
 */
final class SessionLocks {

  private final ConcurrentMap<SessionId, Counted> locks = new ConcurrentHashMap<>();

  /** Runs {@code action} holding the session's lock; reentrant for the thread that holds it. */
  <T> T locked(SessionId session, Supplier<T> action) {
    Counted counted = locks.compute(session, (s, held) -> held == null ? new Counted() : held.in());
    counted.lock.lock();
    try {
      return action.get();
    } finally {
      counted.lock.unlock();
      locks.computeIfPresent(session, (s, held) -> held.out() == 0 ? null : held);
    }
  }

  /** How many sessions have a lock now: those with a holder or a waiter. */
  int size() {
    return locks.size();
  }

  /** A session's lock and how many threads hold or wait for it; changed only inside compute. */
  private static final class Counted {
    private final ReentrantLock lock = new ReentrantLock();
    private int count = 1;

    Counted in() {
      count++;
      return this;
    }

    int out() {
      return --count;
    }
  }
}
