package dev.berth.server.api.body;

import dev.berth.core.tenant.NetworkAccess;
import dev.berth.server.api.StrictJson;
import java.util.List;

/**
 * The body of {@code POST /admin/tokens}; required, every field but {@code network} required.
 * Whether the named workload types exist is not checked here: a grant may name a type that is
 * enabled later.
 *
 * @param tenant the tenant the token acts for: 1-63 lowercase letters, digits or inner '-', not the
 *     reserved {@code admin}
 * @param workloadTypes the workload types the tenant may create: at least one, no repeats
 * @param maxSessions how many sessions the tenant may hold at once, at least 1
 * @param network optional: {@code "none"} narrows the tenant's sessions to loopback only; {@code
 *     "egress"} (the default) gives them what the server gives
 */
public record CreateTokenBody(
    String tenant, List<String> workloadTypes, Integer maxSessions, String network) {

  public CreateTokenBody {
    if (tenant == null) {
      throw StrictJson.missingField("tenant");
    }
    if (workloadTypes == null) {
      throw StrictJson.missingField("workloadTypes");
    }
    if (maxSessions == null) {
      throw StrictJson.missingField("maxSessions");
    }
    TenantFields.checkTenant(tenant);
    workloadTypes = List.copyOf(workloadTypes);
    TenantFields.checkWorkloadTypes(workloadTypes);
    if (maxSessions < 1) {
      throw StrictJson.invalidField("maxSessions", "must be at least 1", maxSessions);
    }
    TenantFields.checkNetwork(network);
  }

  /** The tenant's network: {@code egress} unless the body narrows it. */
  public NetworkAccess networkAccess() {
    return TenantFields.networkAccess(network);
  }
}
