package dev.berth.core.session;

import java.time.Duration;
import java.time.Instant;

/**
 * The original platform's public state, derived from the phase and activity: {@code active}, {@code
 * idle} and {@code snapshot}, plus the transient and terminal values.
 */
public enum PublicState {
  PROVISIONING("provisioning"),
  ACTIVE("active"),
  IDLE("idle"),
  SUSPENDING("suspending"),
  SNAPSHOT("snapshot"),
  RESTORING("restoring"),
  TERMINATING("terminating"),
  TERMINATED("terminated"),
  FAILED("failed");

  private final String wireName;

  PublicState(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /**
   * The public state of a session at {@code now}: a READY session is {@code idle} once no client
   * accessed it for {@code idleAfter}, and still holds its runtime.
   */
  public static PublicState of(Session session, Instant now, Duration idleAfter) {
    return switch (session.phase()) {
      case REQUESTED, PROVISIONING -> PROVISIONING;
      case READY -> isIdle(session.activity(), now, idleAfter) ? IDLE : ACTIVE;
      case SUSPENDING -> SUSPENDING;
      case SUSPENDED -> SNAPSHOT;
      case RESUMING -> RESTORING;
      case TERMINATING -> TERMINATING;
      case TERMINATED -> TERMINATED;
      case FAILED -> FAILED;
    };
  }

  private static boolean isIdle(Activity activity, Instant now, Duration idleAfter) {
    return !activity.lastAccess().plus(idleAfter).isAfter(now);
  }
}
