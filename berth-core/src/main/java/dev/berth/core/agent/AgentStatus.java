package dev.berth.core.agent;

import dev.berth.core.session.DesiredState;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The agent's own report of a session: health, whether the shell is busy with a foreground job, and
 * the newest intent it accepted — which may be newer than the store's after a restore of an older
 * store backup.
 *
 * @param tombstoned whether the agent accepted termination (then it refuses everything else)
 */
public record AgentStatus(
    boolean healthy,
    boolean busy,
    long acceptedIntentVersion,
    DesiredState acceptedDesired,
    boolean tombstoned,
    Optional<Instant> lastOutputAt) {
  public AgentStatus {
    Objects.requireNonNull(acceptedDesired, "acceptedDesired");
    Objects.requireNonNull(lastOutputAt, "lastOutputAt");
  }
}
