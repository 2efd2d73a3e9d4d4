package dev.berth.core.session;

import java.util.Objects;

/** A specific failure: never a bare "failed to start". */
public record Failure(FailureReason reason, String message) {
  public Failure {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
  }
}
