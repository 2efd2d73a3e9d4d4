package dev.berth.server.session;

import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Lets a request wait for a session to reach a state the reconciler drives it to: woken after each
 * reconcile pass over the session, and re-reading the store at least every 250 ms in case a pass
 * ran in another process.
 */
public final class SessionSignals implements dev.berth.core.access.SessionWatch {

  private static final long POLL_MILLIS = 250;

  private final SessionStore store;

  /** One monitor per session someone waits on now; the last waiter to leave removes it. */
  private final ConcurrentHashMap<SessionId, Monitor> monitors = new ConcurrentHashMap<>();

  private static final class Monitor {
    private int waiters;
  }

  public SessionSignals(SessionStore store) {
    this.store = store;
  }

  /** How many sessions are waited on now. */
  int watched() {
    return monitors.size();
  }

  /** Called after each pass over {@code id}. */
  public void changed(SessionId id) {
    Monitor monitor = monitors.get(id);
    if (monitor != null) {
      synchronized (monitor) {
        monitor.notifyAll();
      }
    }
  }

  /**
   * The session as soon as {@code until} holds for it, or empty when {@code timeout} passed first
   * (or the session vanished).
   */
  @Override
  public Optional<Session> await(SessionId id, Predicate<Session> until, Duration timeout) {
    Monitor monitor =
        monitors.compute(
            id,
            (k, m) -> {
              Monitor joined = m == null ? new Monitor() : m;
              joined.waiters++;
              return joined;
            });
    try {
      return awaitOn(monitor, id, until, timeout);
    } finally {
      monitors.computeIfPresent(id, (k, m) -> --m.waiters == 0 ? null : m);
    }
  }

  private Optional<Session> awaitOn(
      Monitor monitor, SessionId id, Predicate<Session> until, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<Session> current = store.get(id);
      if (current.isEmpty()) {
        return Optional.empty();
      }
      if (until.test(current.get())) {
        return current;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      synchronized (monitor) {
        try {
          monitor.wait(Math.max(1, Math.min(POLL_MILLIS, left / 1_000_000)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Optional.empty();
        }
      }
    }
  }
}
