package dev.berth.server.api.body;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.NetworkAccess;
import dev.berth.server.api.StrictJson;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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
    checkTenant(tenant);
    workloadTypes = List.copyOf(workloadTypes);
    checkWorkloadTypes(workloadTypes);
    if (maxSessions < 1) {
      throw StrictJson.invalidField("maxSessions", "must be at least 1", maxSessions);
    }
    if (network != null && !network.equals("none") && !network.equals("egress")) {
      throw StrictJson.invalidField("network", "must be \"none\" or \"egress\"", network);
    }
  }

  /** The tenant's network: {@code egress} unless the body narrows it. */
  public NetworkAccess networkAccess() {
    return network == null ? NetworkAccess.EGRESS : NetworkAccess.parse(network);
  }

  private static void checkTenant(String value) {
    try {
      new TenantId(value);
    } catch (InvalidValueException e) {
      throw StrictJson.invalidField(
          "tenant", "must be 1-63 lowercase letters, digits or inner '-'", value);
    }
    if (value.equals(TenantId.ADMIN.value())) {
      throw StrictJson.invalidField(
          "tenant", "must not be the administrator's reserved tenant", value);
    }
  }

  private static void checkWorkloadTypes(List<String> types) {
    if (types.isEmpty()) {
      throw StrictJson.invalidField("workloadTypes", "must name at least one workload type", "[]");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < types.size(); i++) {
      String type = types.get(i);
      try {
        new WorkloadType(type);
      } catch (InvalidValueException e) {
        throw StrictJson.invalidField(
            "workloadTypes/" + i,
            "must be a workload type name (a lowercase letter, then up to 31 lowercase letters,"
                + " digits or '-')",
            type);
      }
      if (!seen.add(type)) {
        throw StrictJson.invalidField("workloadTypes/" + i, "must not repeat a type", type);
      }
    }
  }
}
