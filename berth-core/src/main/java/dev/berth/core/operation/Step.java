package dev.berth.core.operation;

import java.time.Instant;
import java.util.Objects;

/** One recorded step of an operation, written before the side effect it announces. */
public record Step(StepName name, Instant at, String detail) {
  public Step {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(detail, "detail");
  }
}
