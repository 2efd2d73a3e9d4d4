package dev.berth.client;

import java.util.List;

/**
 * One of {@code GET /admin/tenants}: a tenant's grants and how many sessions it holds.
 *
 * @param sessions the sessions whose reservation the tenant holds now
 */
public record Tenant(
    String tenant,
    List<String> workloadTypes,
    int maxSessions,
    int sessions,
    java.util.Optional<String> network) {

  public Tenant {
    workloadTypes = workloadTypes == null ? List.of() : List.copyOf(workloadTypes);
    network = network == null ? java.util.Optional.empty() : network;
  }

  /** A tenant with the server's network (the shape before {@code network} was read). */
  public Tenant(String tenant, List<String> workloadTypes, int maxSessions, int sessions) {
    this(tenant, workloadTypes, maxSessions, sessions, java.util.Optional.empty());
  }
}
