package dev.berth.core.access;

import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.core.lifecycle.SessionIntents;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import java.time.InstantSource;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Deletes a session: the intent to terminate, then a bounded wait. A second delete is "not found",
 * as for an id that never existed (the original's contract).
 */
public final class DeleteSession {

  /**
   * Whether the session was terminated within the wait; otherwise termination continues, followed
   * through {@code operation} once the reconciler began it.
   */
  public record Deleted(Session session, boolean terminated, Optional<OperationId> operation) {}

  private final SessionStore store;
  private final SessionLookup lookup;
  private final IntentRequests requests;
  private final SessionWatch watch;
  private final AccessSettings settings;

  public DeleteSession(
      SessionStore store,
      SessionIntents intents,
      ReconcileQueue queue,
      SessionWatch watch,
      InstantSource clock,
      AccessSettings settings) {
    this.store = store;
    this.lookup = new SessionLookup(store, clock);
    this.requests = new IntentRequests(intents, queue);
    this.watch = watch;
    this.settings = settings;
  }

  public Deleted delete(Scope scope, SessionId id, OptionalLong ifMatch, String actor) {
    lookup.get(scope, id);
    requests.request(id, DesiredState.TERMINATED, ifMatch, actor, "deleted through the API");
    Session settled =
        watch
            .await(id, Settling::terminated, settings.deleteWait())
            .orElseGet(() -> lookup.getIncludingDeleted(scope, id));
    boolean terminated = settled.phase() == Phase.TERMINATED;
    Optional<OperationId> operation =
        terminated
            ? Optional.empty()
            : store.listOperations(id).stream()
                .filter(op -> op.type() == OperationType.TERMINATE)
                .reduce((first, second) -> second)
                .map(Operation::id);
    return new Deleted(settled, terminated, operation);
  }
}
