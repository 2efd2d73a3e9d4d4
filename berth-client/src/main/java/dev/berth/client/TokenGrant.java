package dev.berth.client;

import java.util.List;
import java.util.Objects;

/**
 * The body of {@code POST /admin/tokens}: a tenant, the workload types it may create and how many
 * sessions it may hold.
 */
public record TokenGrant(String tenant, List<String> workloadTypes, int maxSessions) {

  public TokenGrant {
    Objects.requireNonNull(tenant, "tenant is required");
    workloadTypes = List.copyOf(workloadTypes);
    if (maxSessions < 0) {
      throw new IllegalArgumentException("maxSessions must be >= 0, was " + maxSessions);
    }
  }
}
