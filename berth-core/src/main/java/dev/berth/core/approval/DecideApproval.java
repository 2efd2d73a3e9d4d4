package dev.berth.core.approval;

import dev.berth.core.error.ApprovalRefusedException;
import dev.berth.core.error.ApprovalRefusedException.Why;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import java.time.InstantSource;
import java.util.Optional;

/**
 * A decider (a tenant's or the administrator's token, or the external gateway) approves or rejects
 * a pending approval: once, audited with the decider. The caller has checked that the decider may
 * see the session.
 */
public final class DecideApproval {

  /** The decision. */
  public enum Decision {
    APPROVE,
    REJECT;

    ApprovalState.Event event() {
      return switch (this) {
        case APPROVE -> ApprovalState.Event.APPROVE;
        case REJECT -> ApprovalState.Event.REJECT;
      };
    }
  }

  private final ReadApprovals reads;
  private final ApprovalEnding ending;
  private final InstantSource clock;

  public DecideApproval(Approvals approvals, SessionStore sessions, InstantSource clock) {
    this.reads = new ReadApprovals(approvals, sessions, clock);
    this.ending = new ApprovalEnding(approvals, sessions);
    this.clock = clock;
  }

  /**
   * @param session the session the route names; an approval of another session is not found
   * @param decider who decides, as the audit names them ({@code admin}, {@code tenant acme}, {@code
   *     gateway})
   * @throws ApprovalRefusedException when it is not found, no longer pending, or expired
   */
  public Approval decide(
      SessionId session,
      ApprovalId id,
      Decision decision,
      Optional<String> reason,
      String decider) {
    Approval current =
        reads
            .find(id)
            .filter(a -> a.session().equals(session))
            .orElseThrow(
                () ->
                    new ApprovalRefusedException(
                        Why.APPROVAL_NOT_FOUND,
                        "approval not found: " + id + " of session " + session));
    if (current.state() != ApprovalState.PENDING) {
      throw notPending(current);
    }
    return ending
        .end(current, decision.event(), reason, decider, clock.instant())
        .orElseThrow(() -> notPending(reads.find(id).orElse(current)));
  }

  private static ApprovalRefusedException notPending(Approval approval) {
    if (approval.state() == ApprovalState.EXPIRED) {
      return new ApprovalRefusedException(
          Why.APPROVAL_EXPIRED,
          "approval "
              + approval.id()
              + " expired at "
              + approval.expiresAt()
              + " before a decision; the proxy refused the call, and the agent may ask again");
    }
    return new ApprovalRefusedException(
        Why.APPROVAL_DECIDED,
        "approval "
            + approval.id()
            + " is "
            + approval.state().wireName()
            + approval.decidedBy().map(by -> " by " + by).orElse("")
            + " already; a decision is final");
  }
}
