package dev.berth.agent.contract;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** The control lease as the host reports it: never granted, held until a time, or expired. */
public sealed interface LeaseState {

  /** {@code none}, {@code held} or {@code expired}, as in the session status. */
  String label();

  /** When the lease expires or expired; empty when it was never granted. */
  Optional<Instant> expiresAt();

  /** No lease was ever granted: the session is not subject to one. */
  record None() implements LeaseState {
    @Override
    public String label() {
      return "none";
    }

    @Override
    public Optional<Instant> expiresAt() {
      return Optional.empty();
    }
  }

  /** Granted and not yet expired; admission is open. */
  record Held(Instant until) implements LeaseState {
    public Held {
      Objects.requireNonNull(until, "until");
    }

    @Override
    public String label() {
      return "held";
    }

    @Override
    public Optional<Instant> expiresAt() {
      return Optional.of(until);
    }
  }

  /** Expired without renewal; admission is closed until the next renewal. */
  record Expired(Instant at) implements LeaseState {
    public Expired {
      Objects.requireNonNull(at, "at");
    }

    @Override
    public String label() {
      return "expired";
    }

    @Override
    public Optional<Instant> expiresAt() {
      return Optional.of(at);
    }
  }
}
