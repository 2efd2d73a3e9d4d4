package dev.berth.core.approval;

import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import java.time.InstantSource;
import java.util.Optional;

/**
 * Cancels every pending approval of a session, before it is frozen (suspend) or deleted: the
 * session's proxy is holding those calls, and a checkpoint's drain waits for the agent's turn to
 * end, so a call left waiting for a decision would hold the drain until the approval expired.
 * Cancelled, the proxy ends the turn at once with the call refused.
 */
public final class CancelApprovals {
  private final Approvals approvals;
  private final ApprovalEnding ending;
  private final InstantSource clock;

  public CancelApprovals(Approvals approvals, SessionStore sessions, InstantSource clock) {
    this.approvals = approvals;
    this.ending = new ApprovalEnding(approvals, sessions);
    this.clock = clock;
  }

  /**
   * Cancels the session's pending approvals with {@code why} (e.g. {@code "the session is
   * suspending"}); answers how many it cancelled.
   */
  public int cancelPending(SessionId session, String why) {
    if (approvals.countPending(session) == 0) {
      return 0;
    }
    int cancelled = 0;
    for (Approval pending : approvals.list(session, Optional.of(ApprovalState.PENDING))) {
      if (ending
          .end(
              pending,
              ApprovalState.Event.CANCEL,
              Optional.of(why),
              Approval.BERTH,
              clock.instant())
          .isPresent()) {
        cancelled++;
      }
    }
    return cancelled;
  }
}
