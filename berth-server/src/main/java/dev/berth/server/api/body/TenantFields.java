package dev.berth.server.api.body;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.NetworkAccess;
import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.Tenant;
import dev.berth.server.api.StrictJson;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/** The checks of a tenant's fields that more than one body has, each naming the field at fault. */
final class TenantFields {

  private TenantFields() {}

  static void checkTenant(String value) {
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

  static void checkWorkloadTypes(List<String> types) {
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

  static void checkNetwork(@Nullable String network) {
    if (network != null && !network.equals("none") && !network.equals("egress")) {
      throw StrictJson.invalidField("network", "must be \"none\" or \"egress\"", network);
    }
  }

  static NetworkAccess networkAccess(@Nullable String network) {
    return network == null ? NetworkAccess.EGRESS : NetworkAccess.parse(network);
  }

  /**
   * The service accounts written {@code namespace/name}: no repeats, at most the tenant's limit.
   */
  static Set<ServiceAccount> serviceAccounts(List<String> accounts) {
    if (accounts.size() > Tenant.MAX_SERVICE_ACCOUNTS) {
      throw StrictJson.invalidField(
          "serviceAccounts",
          "must list at most " + Tenant.MAX_SERVICE_ACCOUNTS + " service accounts",
          accounts.size() + " of them");
    }
    Set<ServiceAccount> parsed = new TreeSet<>();
    for (int i = 0; i < accounts.size(); i++) {
      String text = accounts.get(i);
      ServiceAccount account;
      try {
        account = ServiceAccount.parse(String.valueOf(text));
      } catch (InvalidValueException e) {
        throw StrictJson.invalidField(
            "serviceAccounts/" + i,
            "must be namespace/name of a Kubernetes service account, such as ci/builder",
            text);
      }
      if (!parsed.add(account)) {
        throw StrictJson.invalidField(
            "serviceAccounts/" + i, "must not repeat a service account", text);
      }
    }
    return parsed;
  }
}
