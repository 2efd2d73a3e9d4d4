package dev.berth.core.session;

import java.time.Duration;
import java.time.Instant;

/**
 * The original platform's public state: {@code active}, {@code idle} or {@code snapshot} for every
 * session an access can serve, {@code failed} for one no access can serve, and {@code deleted} for
 * one only {@code GET /sessions?deleted=true} lists. The precise lifecycle is the {@link Phase}.
 *
 * <p>A session on its way reads as the state whose access behaviour it already has, so a client of
 * the original never meets a value it does not know: one provisioning is {@code active} (an access
 * waits for it, then is served), one restoring from its archive is {@code snapshot} (an access
 * waits for the restore, as it would start one), and one suspending is {@code active} until it is a
 * snapshot (an access takes an idle-policy suspend back until its archive is committed; during a
 * suspend someone asked for, accesses answer {@code 409 SUSPENDING} and the caller retries).
 */
public enum PublicState {
  ACTIVE("active"),
  IDLE("idle"),
  SNAPSHOT("snapshot"),
  FAILED("failed"),
  DELETED("deleted");

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
      case REQUESTED, PROVISIONING -> ACTIVE;
      case READY -> isIdle(session.activity(), now, idleAfter) ? IDLE : ACTIVE;
      case SUSPENDING -> ACTIVE;
      case SUSPENDED -> SNAPSHOT;
      // A restore without an archive (a runtime lost before any snapshot) provisions afresh.
      case RESUMING -> session.archive().isPresent() ? SNAPSHOT : ACTIVE;
      case TERMINATING, TERMINATED -> DELETED;
      case FAILED -> FAILED;
    };
  }

  private static boolean isIdle(Activity activity, Instant now, Duration idleAfter) {
    return !activity.lastAccess().plus(idleAfter).isAfter(now);
  }
}
