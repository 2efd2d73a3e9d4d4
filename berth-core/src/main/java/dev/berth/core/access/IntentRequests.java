package dev.berth.core.access;

import dev.berth.core.error.PreconditionFailedException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.core.lifecycle.SessionIntents;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import java.util.OptionalLong;

/**
 * Writes what a request wants of a session (its intent) and wakes the reconciler; an If-Match that
 * no longer holds is the caller's stale view, refused with both versions.
 */
public final class IntentRequests {

  private final SessionIntents intents;
  private final ReconcileQueue queue;

  public IntentRequests(SessionIntents intents, ReconcileQueue queue) {
    this.intents = intents;
    this.queue = queue;
  }

  public void request(
      SessionId id, DesiredState desired, OptionalLong ifMatch, String actor, String reason) {
    try {
      intents.request(id, desired, ifMatch, actor, reason);
    } catch (StaleIntentException e) {
      throw stale(e.offered(), e.current());
    }
    queue.enqueue(id);
  }

  public static void checkIfMatch(Session s, OptionalLong ifMatch) {
    if (ifMatch.isPresent() && ifMatch.getAsLong() != s.intent().version()) {
      throw stale(ifMatch.getAsLong(), s.intent().version());
    }
  }

  private static PreconditionFailedException stale(long offered, long current) {
    return new PreconditionFailedException(
        "If-Match names intent version "
            + offered
            + " but the session is at "
            + current
            + "; re-read the session and decide again");
  }
}
