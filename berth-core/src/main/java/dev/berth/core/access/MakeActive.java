package dev.berth.core.access;

import dev.berth.core.error.IntentSupersededException;
import dev.berth.core.error.SuspendingException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.error.WaitExpiredException;
import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.core.lifecycle.SessionIntents;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.PublicState;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.Admission;
import java.time.InstantSource;
import java.util.OptionalLong;

/**
 * "Make active, then serve": counts an access and brings the session to a running runtime — an idle
 * one is touched, a snapshot restored, an idle suspend in flight taken back — and says which {@code
 * path} it took.
 *
 * <p>The race with the idle policy: the access is counted ({@code lastAccess}) before the session
 * is read again to decide, and the idle policy reads {@code lastAccess} again after it wrote its
 * intent, so one of the two always sees the other: either the policy sees this access and takes its
 * suspend back, or this access sees the policy's intent and wins over it.
 */
public final class MakeActive {

  /** A session made active, the path taken, and whether it was idle before. */
  public record Activation(Session session, String path, boolean wasIdle) {}

  private final SessionStore store;
  private final AccessLog accesses;
  private final SessionLookup lookup;
  private final SessionIntents intents;
  private final IntentRequests requests;
  private final ReconcileQueue queue;
  private final SessionWatch watch;
  private final Admission admission;
  private final InstantSource clock;
  private final AccessSettings settings;

  public MakeActive(
      SessionStore store,
      AccessLog accesses,
      SessionIntents intents,
      ReconcileQueue queue,
      SessionWatch watch,
      Admission admission,
      InstantSource clock,
      AccessSettings settings) {
    this.store = store;
    this.accesses = accesses;
    this.lookup = new SessionLookup(store, clock, java.util.Optional.of(accesses));
    this.intents = intents;
    this.requests = new IntentRequests(intents, queue);
    this.queue = queue;
    this.watch = watch;
    this.admission = admission;
    this.clock = clock;
    this.settings = settings;
  }

  /** {@code POST /switch}: makes the session active without a data call; If-Match applies. */
  public Session switchTo(Scope scope, SessionId id, OptionalLong ifMatch, String actor) {
    IntentRequests.checkIfMatch(lookup.get(scope, id), ifMatch);
    activate(scope, id, "switch", actor);
    return lookup.get(scope, id);
  }

  public Activation activate(Scope scope, SessionId id, String verb, String actor) {
    Session found = lookup.get(scope, id);
    boolean wasIdle =
        found.phase() == Phase.READY
            && PublicState.of(found, clock.instant(), settings.idleAfter()) == PublicState.IDLE;
    Session s = found;
    if (found.phase() != Phase.TERMINATING
        && found.phase() != Phase.TERMINATED
        && found.phase() != Phase.FAILED) {
      // A written access reads again (the race above); a kept one only shows in the answer.
      s = accesses.accessed(id, clock.instant()) ? lookup.get(scope, id) : accesses.withPending(s);
    }
    if (Settling.suspendedByIdlePolicy(s)) {
      // Only over the idle policy's suspend: a snapshot someone asked for meanwhile stays.
      boolean won =
          intents
              .requestIf(
                  id,
                  DesiredState.RUNNING,
                  Settling::suspendedByIdlePolicy,
                  actor,
                  "access on " + verb + " won over the idle suspend")
              .isPresent();
      queue.enqueue(id);
      if (won) {
        return new Activation(awaitReady(scope, id), "idle->active->" + verb, true);
      }
      s = lookup.get(scope, id);
    }
    return switch (s.phase()) {
      case READY -> new Activation(s, wasIdle ? "idle->active->" + verb : "active", wasIdle);
      case SUSPENDED -> restore(scope, s, verb, actor);
      case REQUESTED, PROVISIONING, RESUMING -> {
        queue.enqueue(id);
        yield new Activation(awaitReady(scope, id), "active", false);
      }
      case SUSPENDING ->
          throw new SuspendingException(
              "session is being suspended; retry once it is a snapshot, which the request then"
                  + " restores");
      case TERMINATING, TERMINATED -> throw new TerminalIntentException(s.subject(), "RUNNING");
      case FAILED -> throw Refusals.failed(s);
    };
  }

  /**
   * Counts an access that needs no activation (terminal input on an open attach). A written one
   * looks at the session again, as {@link #activate} does, and takes back an idle suspend it finds
   * (without waiting for the abort): the accesses kept after it rely on that.
   */
  public void accessed(SessionId id, String actor) {
    if (!accesses.accessed(id, clock.instant())) {
      return;
    }
    if (store.get(id).filter(Settling::suspendedByIdlePolicy).isPresent()) {
      intents.requestIf(
          id,
          DesiredState.RUNNING,
          Settling::suspendedByIdlePolicy,
          actor,
          "terminal input won over the idle suspend");
      queue.enqueue(id);
    }
  }

  /**
   * A restore takes a runtime again: the tenant's grants and quota apply as at creation (a request
   * that finds the restore asked for already takes no second slot).
   */
  private Activation restore(Scope scope, Session s, String verb, String actor) {
    admission.admitResume(
        scope.principal(),
        s.workloadType(),
        s.tenant(),
        store,
        s.id(),
        () -> {
          requests.request(
              s.id(), DesiredState.RUNNING, OptionalLong.empty(), actor, "restore on " + verb);
          return null;
        });
    return new Activation(awaitReady(scope, s.id()), "snapshot->restore->" + verb, false);
  }

  private Session awaitReady(Scope scope, SessionId id) {
    Session settled =
        watch
            .await(id, Settling::running, settings.createWait())
            .orElseGet(() -> lookup.get(scope, id));
    Refusals.failIfFailed(settled);
    if (settled.phase() == Phase.TERMINATING || settled.phase() == Phase.TERMINATED) {
      throw new TerminalIntentException(settled.subject(), "RUNNING");
    }
    if (settled.phase() != Phase.READY && settled.intent().desired() != DesiredState.RUNNING) {
      throw new IntentSupersededException(
          "while this request waited for the session, "
              + settled.intent().requestedBy()
              + " asked for it to be "
              + settled.intent().desired()
              + " ("
              + settled.intent().reason()
              + "); retry the request, which restores it once it is a snapshot");
    }
    if (settled.phase() != Phase.READY) {
      throw new WaitExpiredException(
          "session did not become active within "
              + settings.createWait().toSeconds()
              + " s; it keeps converging, retry the request");
    }
    return settled;
  }
}
