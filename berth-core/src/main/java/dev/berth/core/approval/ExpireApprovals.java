package dev.berth.core.approval;

import dev.berth.core.store.SessionStore;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The sweep: ends every pending approval past its expiry, so one nobody reads again (its session
 * deleted, its proxy gone) does not stay pending and hold its session from idling.
 */
public final class ExpireApprovals {
  private final Approvals approvals;
  private final ApprovalEnding ending;
  private final InstantSource clock;

  public ExpireApprovals(Approvals approvals, SessionStore sessions, InstantSource clock) {
    this.approvals = approvals;
    this.ending = new ApprovalEnding(approvals, sessions);
    this.clock = clock;
  }

  /** Ends the overdue ones; answers how many this call ended. */
  public int sweep() {
    int ended = 0;
    for (Approval overdue : approvals.pendingExpiredBy(clock.instant())) {
      if (ending
          .end(
              overdue,
              ApprovalState.Event.EXPIRE,
              Optional.of(ReadApprovals.EXPIRED_REASON),
              Approval.BERTH,
              overdue.expiresAt())
          .isPresent()) {
        ended++;
      }
    }
    return ended;
  }
}
