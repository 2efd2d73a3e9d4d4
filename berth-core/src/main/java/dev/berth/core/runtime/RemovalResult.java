package dev.berth.core.runtime;

/** The outcome of asking for a runtime's removal. Only {@link Confirmed} releases anything. */
public sealed interface RemovalResult {

  /** The runtime is gone (also when it never existed). */
  record Confirmed() implements RemovalResult {}

  /** Removal was accepted and is still in progress; observe again later. */
  record InProgress(String detail) implements RemovalResult {}

  /** Removal could not be confirmed (e.g. no contact); the obligation stays owed. */
  record Unconfirmed(String detail) implements RemovalResult {}
}
