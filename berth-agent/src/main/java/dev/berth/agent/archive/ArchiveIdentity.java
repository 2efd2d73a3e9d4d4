package dev.berth.agent.archive;

import java.time.Instant;
import java.util.Objects;

/**
 * Whose state an archive holds: the session id, the archive generation (one per snapshot) and when
 * it was written. The manifest records it; a restore can demand that it matches.
 */
public record ArchiveIdentity(String session, long generation, Instant createdAt) {

  public ArchiveIdentity {
    Objects.requireNonNull(session, "session is required");
    Objects.requireNonNull(createdAt, "createdAt is required");
    if (session.isBlank()) {
      throw new IllegalArgumentException("session must not be blank");
    }
    if (generation < 0) {
      throw new IllegalArgumentException("generation must be >= 0, was " + generation);
    }
  }

  /** Whether {@code other} names the same session and generation (the time may differ). */
  public boolean sameArchiveAs(ArchiveIdentity other) {
    return session.equals(other.session) && generation == other.generation;
  }
}
