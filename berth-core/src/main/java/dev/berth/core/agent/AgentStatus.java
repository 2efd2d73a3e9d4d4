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
 * @param stopReason why the host stopped the workload, when it did: {@value #LEASE_EXPIRED} (its
 *     control lease expired and the disconnect policy stopped it), {@code MAX_LIFETIME_EXCEEDED},
 *     {@code HOST_RESTARTED}, or another reason a newer agent gives
 */
public record AgentStatus(
    boolean healthy,
    boolean busy,
    long acceptedIntentVersion,
    DesiredState acceptedDesired,
    boolean tombstoned,
    Optional<Instant> lastOutputAt,
    Optional<String> stopReason) {

  /** The stop reason of a workload its host stopped because its control lease expired. */
  public static final String LEASE_EXPIRED = "LEASE_EXPIRED";

  public AgentStatus {
    Objects.requireNonNull(acceptedDesired, "acceptedDesired");
    Objects.requireNonNull(lastOutputAt, "lastOutputAt");
    Objects.requireNonNull(stopReason, "stopReason");
  }

  /** A report that names no stop reason. */
  public AgentStatus(
      boolean healthy,
      boolean busy,
      long acceptedIntentVersion,
      DesiredState acceptedDesired,
      boolean tombstoned,
      Optional<Instant> lastOutputAt) {
    this(
        healthy,
        busy,
        acceptedIntentVersion,
        acceptedDesired,
        tombstoned,
        lastOutputAt,
        Optional.empty());
  }
}
