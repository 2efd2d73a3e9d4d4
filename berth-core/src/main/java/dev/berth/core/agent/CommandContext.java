package dev.berth.core.agent;

import dev.berth.core.operation.OperationId;
import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.Objects;

/**
 * What every mutating agent command carries: the session it is scoped to, the intent version it
 * serves, an absolute deadline and the operation it belongs to (commands are idempotent by it).
 */
public record CommandContext(
    SessionId session, long intentVersion, Instant deadline, OperationId operation) {
  public CommandContext {
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(operation, "operation");
  }
}
