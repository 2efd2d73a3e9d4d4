package dev.berth.core.access;

import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;

/** Waits for a session to change, so that a request can answer once the reconciler got there. */
public interface SessionWatch {

  /**
   * The session once {@code until} holds for it (at once when it holds now), or empty when {@code
   * timeout} passed first or the session is gone.
   */
  Optional<Session> await(SessionId id, Predicate<Session> until, Duration timeout);
}
