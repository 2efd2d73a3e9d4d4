package dev.berth.core.approval;

import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where approvals are kept, so that they survive a control-plane restart and every replica sees the
 * same decision. Thread-safe; every method is atomic on its own.
 */
public interface Approvals {

  /**
   * Stores {@code approval} unless one with its id exists; either way answers the stored one (so a
   * caller tells "created" from "existed" by comparing, and two racing creates store one).
   */
  Approval createIfAbsent(Approval approval);

  Optional<Approval> find(ApprovalId id);

  /** The session's approvals, newest first; with a state, only those in it. */
  List<Approval> list(SessionId session, Optional<ApprovalState> state);

  /**
   * Stores {@code ended} (a final state) if the stored approval is still pending: the one way an
   * approval ends, so two deciders racing end it once.
   *
   * @return whether it was stored; false when the approval is missing or already final
   */
  boolean end(Approval ended);

  /** How many of the session's approvals are pending in the store (expired or not). */
  int countPending(SessionId session);

  /** Every pending approval whose expiry is at or before {@code now}, for the sweep. */
  List<Approval> pendingExpiredBy(Instant now);

  /**
   * Every pending approval whose expiry is after {@code now}, oldest first: what an external
   * gateway is asked about again by a replica that starts, or that outlived the one that relayed
   * it.
   */
  List<Approval> waitingAt(Instant now);
}
