package dev.berth.core.approval;

import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads approvals as they stand now: one past its expiry is stored as expired on the way, so a
 * reader never sees a pending approval nobody can decide any more. The caller checks the scope.
 */
public final class ReadApprovals {

  /** The reason an approval that nobody decided in time ends with. */
  public static final String EXPIRED_REASON = "no decision before it expired";

  private final Approvals approvals;
  private final ApprovalEnding ending;
  private final InstantSource clock;

  public ReadApprovals(Approvals approvals, SessionStore sessions, InstantSource clock) {
    this.approvals = approvals;
    this.ending = new ApprovalEnding(approvals, sessions);
    this.clock = clock;
  }

  public Optional<Approval> find(ApprovalId id) {
    return approvals.find(id).map(this::current);
  }

  /** The session's approvals, newest first; with a state, those in it as of now. */
  public List<Approval> list(SessionId session, Optional<ApprovalState> state) {
    List<Approval> all = new ArrayList<>();
    for (Approval stored : approvals.list(session, Optional.empty())) {
      Approval now = current(stored);
      if (state.map(s -> s == now.state()).orElse(true)) {
        all.add(now);
      }
    }
    return all;
  }

  /** How many of the session's approvals wait for a decision now (for the idle hold and JSON). */
  public int countPending(SessionId session) {
    if (approvals.countPending(session) == 0) {
      return 0; // the common case: one count, no list
    }
    return list(session, Optional.of(ApprovalState.PENDING)).size();
  }

  /**
   * When the last of the session's waiting approvals expires, if one waits: how long it holds the
   * session from idling.
   */
  public Optional<Instant> pendingUntil(SessionId session) {
    if (approvals.countPending(session) == 0) {
      return Optional.empty();
    }
    return list(session, Optional.of(ApprovalState.PENDING)).stream()
        .map(Approval::expiresAt)
        .max(Instant::compareTo);
  }

  /** {@code stored}, expired now if it is overdue. */
  Approval current(Approval stored) {
    if (!stored.overdueAt(clock.instant())) {
      return stored;
    }
    return ending
        .end(
            stored,
            ApprovalState.Event.EXPIRE,
            Optional.of(EXPIRED_REASON),
            Approval.BERTH,
            stored.expiresAt())
        .or(() -> approvals.find(stored.id()))
        .orElse(stored);
  }
}
