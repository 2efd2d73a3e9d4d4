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
public final class SessionSignals {

  private static final long POLL_MILLIS = 250;

  private final SessionStore store;
  private final ConcurrentHashMap<SessionId, Object> monitors = new ConcurrentHashMap<>();

  public SessionSignals(SessionStore store) {
    this.store = store;
  }

  /** Called after each pass over {@code id}. */
  public void changed(SessionId id) {
    Object monitor = monitors.get(id);
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
  public Optional<Session> await(SessionId id, Predicate<Session> until, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Object monitor = monitors.computeIfAbsent(id, k -> new Object());
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
