package dev.berth.core.approval;

import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.SessionStore;
import java.time.Instant;
import java.util.Optional;

/**
 * Ends a pending approval in the store and writes the audit entry that says who ended it and why;
 * the one way every use case ends one, so every end is audited alike.
 */
final class ApprovalEnding {
  private final Approvals approvals;
  private final SessionStore sessions;

  ApprovalEnding(Approvals approvals, SessionStore sessions) {
    this.approvals = approvals;
    this.sessions = sessions;
  }

  /**
   * Ends {@code pending} by {@code event}; answers the ended approval, or empty when another
   * decider ended it first (the store holds that one's end).
   */
  Optional<Approval> end(
      Approval pending, ApprovalState.Event event, Optional<String> why, String by, Instant at) {
    Approval ended = pending.ended(event, why, by, at);
    if (!approvals.end(ended)) {
      return Optional.empty();
    }
    sessions.append(
        AuditEvent.of(
            ended.session(),
            at,
            by,
            "approval." + ended.state().wireName(),
            ended.tool() + " " + ended.id() + why.map(w -> ": " + w).orElse("")));
    return Optional.of(ended);
  }
}
