package dev.berth.core.approval;

import dev.berth.core.error.ApprovalRefusedException;
import dev.berth.core.error.ApprovalRefusedException.Why;
import dev.berth.core.store.SessionStore;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The session's proxy stopped holding the call an approval is about (its client went away, or its
 * own deadline passed): a pending approval ends cancelled, so that nobody approves a call that no
 * longer waits and it holds the session from idling no more. Idempotent, and a compare-and-set like
 * every end: a decision that landed first stands, and the answer says which one it was (the proxy
 * still holds the call while it asks, so an approval that won is honoured). The caller has checked
 * that the proxy's key names the approval's session.
 */
public final class WithdrawApproval {

  /** The longest reason kept from a proxy: a line, not a document. */
  public static final int MAX_REASON = 200;

  private final ReadApprovals reads;
  private final ApprovalEnding ending;
  private final InstantSource clock;

  public WithdrawApproval(Approvals approvals, SessionStore sessions, InstantSource clock) {
    this.reads = new ReadApprovals(approvals, sessions, clock);
    this.ending = new ApprovalEnding(approvals, sessions);
    this.clock = clock;
  }

  /**
   * Ends {@code id} cancelled when it is pending; answers it as it stands then.
   *
   * @param why the proxy's words, e.g. {@code no decision within 600 s}; cut to {@value
   *     #MAX_REASON} characters
   * @throws ApprovalRefusedException when it is not found
   */
  public Approval withdraw(ApprovalId id, String why) {
    Approval current =
        reads
            .find(id)
            .orElseThrow(
                () ->
                    new ApprovalRefusedException(
                        Why.APPROVAL_NOT_FOUND, "approval not found: " + id));
    if (current.state() != ApprovalState.PENDING) {
      return current;
    }
    String reason =
        "the proxy stopped waiting: "
            + (why.isBlank() ? "the call was given up" : cut(why.strip()));
    return ending
        .end(
            current,
            ApprovalState.Event.CANCEL,
            Optional.of(reason),
            Approval.PROXY,
            clock.instant())
        .or(() -> reads.find(id))
        .orElse(current);
  }

  private static String cut(String why) {
    return why.length() > MAX_REASON ? why.substring(0, MAX_REASON) + "…" : why;
  }
}
