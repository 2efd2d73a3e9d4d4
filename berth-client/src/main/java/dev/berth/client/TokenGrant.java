package dev.berth.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The body of {@code POST /admin/tokens}: a tenant, the workload types it may create, how many
 * sessions it may hold and, when given, its network ({@code none} or {@code egress}; the server's
 * own when absent).
 */
public record TokenGrant(
    String tenant,
    List<String> workloadTypes,
    int maxSessions,
    @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<String> network) {

  public TokenGrant {
    Objects.requireNonNull(tenant, "tenant is required");
    workloadTypes = List.copyOf(workloadTypes);
    network = Objects.requireNonNullElse(network, Optional.empty());
    if (maxSessions < 0) {
      throw new IllegalArgumentException("maxSessions must be >= 0, was " + maxSessions);
    }
  }

  /** A grant with the server's network. */
  public TokenGrant(String tenant, List<String> workloadTypes, int maxSessions) {
    this(tenant, workloadTypes, maxSessions, Optional.empty());
  }
}
