package dev.berth.agent.contract;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A runtime's control lease and the local contract it is held to, read at one moment.
 *
 * @param state never granted, held until a time, or expired
 * @param renewedAt when the control plane last renewed it; empty when it never did
 * @param ttl the time to live of that renewal
 * @param policy what the host does with the workload once the lease expired
 * @param grace how long {@link DisconnectPolicy#CONTINUE} keeps the workload after the expiry
 * @param maxLifetime the bound on the runtime's life, whatever the lease says
 * @param stopReason why the host stopped the workload, once it did
 */
public record LeaseTerms(
    LeaseState state,
    Optional<Instant> renewedAt,
    Optional<Duration> ttl,
    DisconnectPolicy policy,
    Duration grace,
    Optional<Duration> maxLifetime,
    Optional<String> stopReason) {
  public LeaseTerms {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(renewedAt, "renewedAt");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(grace, "grace");
    Objects.requireNonNull(maxLifetime, "maxLifetime");
    Objects.requireNonNull(stopReason, "stopReason");
  }
}
