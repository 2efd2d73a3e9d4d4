package dev.berth.core.store;

import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.Objects;

/** A held session lease: who holds it, until when, and the fencing token its writes carry. */
public record Lease(SessionId sessionId, String holder, FencingToken token, Instant expiresAt) {
  public Lease {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(expiresAt, "expiresAt");
    if (holder.isBlank()) {
      throw new IllegalArgumentException("lease holder must not be blank");
    }
  }
}
