package dev.berth.core.store;

import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of the append-only event and audit log.
 *
 * @param sequence the store-assigned position, growing; 0 before the event is appended
 * @param sessionId the session concerned, or empty for installation-wide events
 * @param type a dotted lower-case event type such as {@code session.intent}
 */
public record AuditEvent(
    long sequence,
    Optional<SessionId> sessionId,
    Instant at,
    String actor,
    String type,
    String detail) {

  public AuditEvent {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(detail, "detail");
    if (!type.matches("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*")) {
      throw new IllegalArgumentException(
          "audit event type must be dotted lower-case words, was \"" + type + "\"");
    }
  }

  public static AuditEvent of(
      SessionId session, Instant at, String actor, String type, String detail) {
    return new AuditEvent(0, Optional.of(session), at, actor, type, detail);
  }

  public AuditEvent withSequence(long seq) {
    return new AuditEvent(seq, sessionId, at, actor, type, detail);
  }
}
