package dev.berth.core.access;

import dev.berth.core.digest.Sha256;
import dev.berth.core.error.RecoveryRefusedException;
import dev.berth.core.error.RecoveryRefusedException.Why;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.Obligation;
import dev.berth.core.session.ObligationAction;
import dev.berth.core.session.ObligationState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.Retry;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.Admission;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;

/**
 * Brings a deleted session back from its last archive, within the recovery window, as a new session
 * that is a snapshot of it (the first access restores it). The new session's id derives from the
 * deleted one's, so a retry after a crash finishes the same recovery instead of making a second
 * copy. The archive is handed over first: from then on the deleted session's retention no longer
 * deletes it.
 */
public final class RecoverSession {

  private final SessionStore store;
  private final SessionLookup lookup;
  private final Admission admission;
  private final InstantSource clock;

  public RecoverSession(SessionStore store, Admission admission, InstantSource clock) {
    this.store = store;
    this.lookup = new SessionLookup(store, clock);
    this.admission = admission;
    this.clock = clock;
  }

  public Session recover(Scope scope, SessionId id, String actor) {
    Session deleted = lookup.getIncludingDeleted(scope, id);
    if (deleted.phase() != Phase.TERMINATED) {
      throw new RecoveryRefusedException(
          Why.INVALID_STATE,
          "only a deleted session can be recovered; session "
              + id.value()
              + " is "
              + Refusals.phaseName(deleted)
              + (deleted.phase() == Phase.TERMINATING ? " (being deleted: retry shortly)" : ""));
    }
    SessionId heir = heirOf(id);
    if (store.get(heir).isPresent()) {
      throw new RecoveryRefusedException(
          Why.ALREADY_RECOVERED,
          "session " + id.value() + " was recovered already, as session " + heir.value());
    }
    ArchiveRef archive =
        deleted
            .archive()
            .orElseThrow(
                () ->
                    new RecoveryRefusedException(
                        Why.NOT_RECOVERABLE,
                        "session "
                            + id.value()
                            + " was never suspended, so no archive of it exists; a session is"
                            + " recoverable from its last snapshot only"));
    // The recovered session is a snapshot: it holds no slot until it is restored (which is
    // admitted then), but the tenant must still be granted its workload type.
    admission.checkMayCreate(scope.principal(), deleted.workloadType(), deleted.tenant(), 0);
    String handedOver = "handed to recovered session " + heir.value();
    Retry.onConflict(() -> handOverOnce(deleted, archive, handedOver));
    Instant now = clock.instant();
    Session recovered = store.create(Session.recovered(heir, deleted, archive, now, actor));
    store.append(
        AuditEvent.of(
            heir,
            now,
            actor,
            "session.recovered",
            "from deleted session " + id.value() + ", archive generation " + archive.generation()));
    return recovered;
  }

  /** The id a deleted session's recovery gets: derived, so that a retried recovery finds it. */
  public static SessionId heirOf(SessionId deleted) {
    return new SessionId(Sha256.hexPrefix("berth-recover:" + deleted.value(), 16));
  }

  /**
   * Marks the deleted session's retained archive as handed over; a version conflict makes {@link
   * Retry} read again.
   */
  private boolean handOverOnce(Session deleted, ArchiveRef archive, String handedOver) {
    Session current = store.get(deleted.id()).orElseThrow(SessionLookup::notFound);
    Optional<Obligation> retention =
        current.obligations().stream()
            .filter(o -> o.action() == ObligationAction.RETAIN_ARCHIVE)
            .filter(o -> o.resource().equals(archive.uri()))
            .findFirst();
    if (retention.isPresent() && retention.get().detail().equals(handedOver)) {
      return true; // a crashed recovery got this far
    }
    boolean kept =
        retention
            .filter(o -> o.state() == ObligationState.RETAINED)
            .flatMap(Obligation::retainUntil)
            .filter(until -> clock.instant().isBefore(until))
            .isPresent();
    if (!kept) {
      throw new RecoveryRefusedException(
          Why.RECOVERY_WINDOW_ENDED,
          "the last archive of session "
              + deleted.id().value()
              + " is no longer kept"
              + retention
                  .flatMap(Obligation::retainUntil)
                  .map(u -> " (kept until " + u + ")")
                  .orElse("")
              + "; it cannot be recovered");
    }
    store.compareAndSet(
        current.withObligation(
            ObligationAction.RETAIN_ARCHIVE, archive.uri(), o -> o.complete(handedOver)),
        current.version());
    return true;
  }
}
