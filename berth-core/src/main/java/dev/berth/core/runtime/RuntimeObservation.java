package dev.berth.core.runtime;

import java.util.Optional;

/** What the runtime adapter saw of one runtime. Unknown is not Gone. */
public sealed interface RuntimeObservation {

  /** Being created or starting; not ready yet. */
  record Starting(String detail) implements RuntimeObservation {}

  /** Running; {@code endpoint} is where its agent answers. */
  record Running(Optional<String> endpoint) implements RuntimeObservation {}

  /** Confirmed not to exist (never created, removed, or vanished). */
  record Gone(String detail) implements RuntimeObservation {}

  /** Could not be observed: lost contact says nothing about whether it still runs. */
  record Unknown(String detail) implements RuntimeObservation {}
}
