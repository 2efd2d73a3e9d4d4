package dev.berth.core.operation;

import java.util.Objects;

/** Why an operation failed: a stable reason and a message that says what to do. */
public record OperationError(String reason, String message) {
  public OperationError {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
  }
}
