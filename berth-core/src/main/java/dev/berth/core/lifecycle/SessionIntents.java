package dev.berth.core.lifecycle;

import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.AgentModel;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.PluginName;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.SessionStore;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * Writes intent: the first, durable step of every lifecycle change. The reconciler does the rest. A
 * request records the new intent and the operation that serves it; operation ids derive from the
 * intent version, so a duplicate request returns the operation of the first one.
 */
public final class SessionIntents {

  private final SessionStore store;
  private final InstantSource clock;
  private final LifecycleSettings settings;
  private final BiConsumer<SessionId, DesiredState> leaving;

  public SessionIntents(SessionStore store, InstantSource clock, LifecycleSettings settings) {
    this(store, clock, settings, (id, desired) -> {});
  }

  /**
   * @param leaving told, after a request for SUSPENDED or TERMINATED was recorded, which session is
   *     leaving and for what: what must end before the reconciler drains the session (its pending
   *     approvals, which would hold the agent's turn and so the checkpoint's drain) ends there
   */
  public SessionIntents(
      SessionStore store,
      InstantSource clock,
      LifecycleSettings settings,
      BiConsumer<SessionId, DesiredState> leaving) {
    this.store = store;
    this.clock = clock;
    this.settings = settings;
    this.leaving = leaving;
  }

  /** Records a new session (intent RUNNING v1) and its PROVISION operation. */
  public Session create(
      SessionId id, TenantId tenant, String name, WorkloadType workload, String actor) {
    return create(id, tenant, name, workload, Optional.empty(), List.of(), actor);
  }

  /** As above, for an agent session with its model and plugins. */
  public Session create(
      SessionId id,
      TenantId tenant,
      String name,
      WorkloadType workload,
      Optional<AgentModel> model,
      List<PluginName> plugins,
      String actor) {
    Instant now = clock.instant();
    Session stored =
        store.create(Session.request(id, tenant, name, workload, model, plugins, now, actor));
    store.createOperation(operationFor(stored, now));
    store.append(AuditEvent.of(id, now, actor, "session.created", "intent RUNNING v1"));
    return stored;
  }

  /**
   * Asks for {@code desired}. With {@code ifMatch}, the request holds only while the session's
   * intent version is exactly that one.
   *
   * @return the operation that serves the resulting intent (an existing one when the intent already
   *     was {@code desired})
   * @throws NotFoundException when the session does not exist
   * @throws StaleIntentException when {@code ifMatch} is not the current intent version
   * @throws dev.berth.core.error.TerminalIntentException when termination was already requested
   */
  public Operation request(
      SessionId id, DesiredState desired, OptionalLong ifMatch, String actor, String reason) {
    Predicate<Session> matches =
        current -> {
          if (ifMatch.isPresent() && ifMatch.getAsLong() != current.intent().version()) {
            throw new StaleIntentException(
                current.subject(), ifMatch.getAsLong(), current.intent().version());
          }
          return true;
        };
    return followed(id, desired, write(id, desired, matches, actor, reason)).orElseThrow();
  }

  /**
   * Asks for {@code desired} only while {@code stillHolds} is true of the session as stored: the
   * condition is evaluated on a fresh read right before every compare-and-swap attempt, so that a
   * decision taken on an older copy (the idle policy's, say) is re-checked against the newest
   * record, its last access included.
   *
   * @return the operation that serves the new intent, or empty when the condition no longer held
   */
  public Optional<Operation> requestIf(
      SessionId id,
      DesiredState desired,
      Predicate<Session> stillHolds,
      String actor,
      String reason) {
    return followed(id, desired, write(id, desired, stillHolds, actor, reason));
  }

  private Optional<Operation> followed(
      SessionId id, DesiredState desired, Optional<Operation> written) {
    if (written.isPresent() && desired != DesiredState.RUNNING) {
      leaving.accept(id, desired);
    }
    return written;
  }

  // Identity on purpose: withIntent returns the very session it was called on when nothing changed.
  @SuppressWarnings("ReferenceEquality")
  private Optional<Operation> write(
      SessionId id,
      DesiredState desired,
      Predicate<Session> precondition,
      String actor,
      String reason) {
    return dev.berth.core.store.Retry.onConflict(
        () -> {
          Session current = store.get(id).orElseThrow(() -> new NotFoundException("session " + id));
          if (!precondition.test(current)) {
            return Optional.empty();
          }
          Instant now = clock.instant();
          Session next = current.withIntent(desired, now, actor, reason);
          Session stored = next == current ? current : store.compareAndSet(next, current.version());
          Operation op = store.createOperation(operationFor(stored, now));
          if (stored != current) {
            store.append(
                AuditEvent.of(
                    id,
                    now,
                    actor,
                    "session.intent",
                    desired + " v" + stored.intent().version() + ": " + reason));
          }
          return Optional.of(op);
        });
  }

  /** The operation that serves the session's current intent. */
  Operation operationFor(Session session, Instant now) {
    OperationType type = typeFor(session);
    long version = session.intent().version();
    return Operation.pending(
        OperationId.of(session.id(), type, version),
        session.id(),
        type,
        version,
        now,
        now.plus(settings.operationTimeout()));
  }

  static OperationType typeFor(Session session) {
    return switch (session.intent().desired()) {
      case TERMINATED -> OperationType.TERMINATE;
      case SUSPENDED -> OperationType.SUSPEND;
      case RUNNING ->
          session.incarnation() == 0 && session.archive().isEmpty()
              ? OperationType.PROVISION
              : OperationType.RESUME;
    };
  }
}
