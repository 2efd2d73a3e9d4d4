package dev.berth.core.runtime;

import dev.berth.core.session.FailureReason;
import java.util.Objects;
import java.util.Optional;

/** What the runtime adapter saw of one runtime. Unknown is not Gone. */
public sealed interface RuntimeObservation {

  /**
   * Being created or starting; not ready yet.
   *
   * @param stalledBy why it is not starting yet when that is a failure that may still resolve on
   *     its own (no node has room, the image pull is backing off): the reason the start fails with
   *     when its deadline passes; empty while it is simply on its way
   */
  record Starting(String detail, Optional<FailureReason> stalledBy) implements RuntimeObservation {
    public Starting {
      Objects.requireNonNull(detail, "detail");
      Objects.requireNonNull(stalledBy, "stalledBy");
    }

    /** On its way, nothing in the way. */
    public Starting(String detail) {
      this(detail, Optional.empty());
    }
  }

  /** Running; {@code endpoint} is where its agent answers. */
  record Running(Optional<String> endpoint) implements RuntimeObservation {}

  /**
   * Exists, or may, but will not run without someone changing something: its image name is invalid,
   * its configuration refers to something missing, its agent was killed for memory or keeps
   * crashing, it was evicted. The runtime is not confirmed gone: it is removed like any other
   * before its reservation is released.
   */
  record Failed(FailureReason reason, String detail) implements RuntimeObservation {
    public Failed {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
    }
  }

  /** Confirmed not to exist (never created, removed, or vanished). */
  record Gone(String detail) implements RuntimeObservation {}

  /** Could not be observed: lost contact says nothing about whether it still runs. */
  record Unknown(String detail) implements RuntimeObservation {}
}
