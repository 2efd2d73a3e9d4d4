package dev.berth.core.access;

import dev.berth.core.error.IntentSupersededException;
import dev.berth.core.error.SnapshotRefusedException;
import dev.berth.core.error.SnapshotUnavailableException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.error.WaitExpiredException;
import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.core.lifecycle.Reconciler;
import dev.berth.core.lifecycle.SessionIntents;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import java.time.InstantSource;
import java.util.OptionalLong;

/**
 * Suspends a session now: its workspace is archived and its runtime reclaimed. Idempotent on a
 * snapshot; waits (bounded) for the suspend to finish. An access that takes the suspend back
 * meanwhile (only one of the idle policy's can) gives the request up; a state a restore would
 * refuse is refused here, and the session stays active.
 */
public final class SnapshotSession {

  private final SessionLookup lookup;
  private final IntentRequests requests;
  private final SessionWatch watch;
  private final AccessSettings settings;

  public SnapshotSession(
      SessionStore store,
      SessionIntents intents,
      ReconcileQueue queue,
      SessionWatch watch,
      InstantSource clock,
      AccessSettings settings) {
    this.lookup = new SessionLookup(store, clock);
    this.requests = new IntentRequests(intents, queue);
    this.watch = watch;
    this.settings = settings;
  }

  public Session snapshot(Scope scope, SessionId id, OptionalLong ifMatch, String actor) {
    Session current = lookup.get(scope, id);
    IntentRequests.checkIfMatch(current, ifMatch);
    if (!settings.suspendEnabled()) {
      throw new SnapshotUnavailableException(
          "checkpoint strategy is disabled: snapshots of "
              + current.workloadType().value()
              + " sessions are turned off on this installation; the runtime is kept");
    }
    switch (current.phase()) {
      case SUSPENDED -> {
        return current;
      }
      case FAILED -> throw Refusals.failed(current);
      case TERMINATING, TERMINATED ->
          throw new TerminalIntentException(current.subject(), "SUSPENDED");
      case REQUESTED, PROVISIONING, READY, SUSPENDING, RESUMING ->
          requests.request(id, DesiredState.SUSPENDED, ifMatch, actor, "snapshot through the API");
    }
    Session settled =
        watch
            .await(id, Settling::suspended, settings.suspendWait())
            .orElseGet(() -> lookup.get(scope, id));
    Refusals.failIfFailed(settled);
    if (settled.phase() == Phase.SUSPENDED) {
      return settled;
    }
    throw notSuspended(id, settled);
  }

  private RuntimeException notSuspended(SessionId id, Session settled) {
    if (settled.intent().desired() != DesiredState.SUSPENDED
        && settled.intent().requestedBy().equals(Reconciler.ACTOR)) {
      // Refused at snapshot time rather than discovered at restore.
      return new SnapshotRefusedException(
          "session " + id.value() + " stays active: " + settled.intent().reason());
    }
    if (settled.intent().desired() != DesiredState.SUSPENDED) {
      return new IntentSupersededException(
          "the snapshot was given up: the session is now asked to be "
              + settled.intent().desired()
              + " by "
              + settled.intent().requestedBy()
              + " ("
              + settled.intent().reason()
              + "); request it again if it is still wanted");
    }
    return new WaitExpiredException(
        "session was not suspended within "
            + settings.suspendWait().toSeconds()
            + " s; the suspend goes on, watch the session or its operation");
  }
}
