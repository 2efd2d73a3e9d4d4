package dev.berth.core.session;

import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.TerminalIntentException;
import java.time.Instant;
import java.util.Objects;

/**
 * The desired state of a session with its version. The intent is written first, durably, by API
 * calls and by the idle policy; the reconciler then works towards it. The version only grows, and a
 * TERMINATED intent can never change again.
 */
public record Intent(
    DesiredState desired, long version, Instant requestedAt, String requestedBy, String reason) {

  public Intent {
    Objects.requireNonNull(desired, "desired");
    Objects.requireNonNull(requestedAt, "requestedAt");
    Objects.requireNonNull(requestedBy, "requestedBy");
    Objects.requireNonNull(reason, "reason");
    if (version < 1) {
      throw new IllegalArgumentException("intent version must be at least 1, was " + version);
    }
  }

  /** The first intent of a new session: run it. */
  public static Intent initial(Instant now, String requestedBy) {
    return new Intent(DesiredState.RUNNING, 1, now, requestedBy, "created");
  }

  public boolean isTerminal() {
    return desired == DesiredState.TERMINATED;
  }

  /**
   * The intent after asking for {@code next}. Asking for what is already desired changes nothing
   * (same version), so repeated requests are idempotent.
   *
   * @throws TerminalIntentException when this intent is TERMINATED and {@code next} is not
   */
  public Intent change(
      String subject, DesiredState next, Instant now, String requestedBy, String reason) {
    if (next == desired) {
      return this;
    }
    if (isTerminal()) {
      throw new TerminalIntentException(subject, next.name());
    }
    return new Intent(next, version + 1, now, requestedBy, reason);
  }

  /**
   * Rejects a command or request computed against an older intent version.
   *
   * @throws StaleIntentException when {@code offered} is below this version
   */
  public void requireNotStale(String subject, long offered) {
    if (offered < version) {
      throw new StaleIntentException(subject, offered, version);
    }
  }
}
