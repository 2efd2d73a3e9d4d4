package dev.berth.client;

import java.util.List;

/**
 * One of {@code GET /admin/tenants}: a tenant's grants and how many sessions it holds.
 *
 * @param sessions the sessions whose reservation the tenant holds now
 * @param disconnect what its sessions' runtimes do when their control lease expires; empty for the
 *     server's default
 */
public record Tenant(
    String tenant,
    List<String> workloadTypes,
    int maxSessions,
    int sessions,
    java.util.Optional<String> network,
    java.util.Optional<Disconnect> disconnect) {

  /** A disconnect policy: {@code continue} for {@code graceSeconds}, or {@code stop}. */
  public record Disconnect(String policy, long graceSeconds) {
    /** E.g. {@code continue 900s} or {@code stop}. */
    public String label() {
      return "stop".equals(policy) ? policy : policy + " " + graceSeconds + "s";
    }
  }

  public Tenant {
    workloadTypes = workloadTypes == null ? List.of() : List.copyOf(workloadTypes);
    network = network == null ? java.util.Optional.empty() : network;
    disconnect = disconnect == null ? java.util.Optional.empty() : disconnect;
  }

  /** A tenant with the server's network (the shape before {@code network} was read). */
  public Tenant(String tenant, List<String> workloadTypes, int maxSessions, int sessions) {
    this(
        tenant,
        workloadTypes,
        maxSessions,
        sessions,
        java.util.Optional.empty(),
        java.util.Optional.empty());
  }
}
