package dev.berth.server.api.body;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.NetworkAccess;
import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.Tenant;
import dev.berth.server.api.StrictJson;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code PUT /admin/tenants/{tenant}}: the tenant's whole grant, which replaces the one
 * it had (the tenant is named by the path). {@code workloadTypes} and {@code maxSessions} are
 * required; {@code network} defaults to {@code egress} and {@code serviceAccounts} to none.
 *
 * @param workloadTypes the workload types the tenant may create: at least one, no repeats
 * @param maxSessions how many sessions the tenant may hold at once, 1 to 10000
 * @param network optional: {@code "none"} or {@code "egress"}
 * @param serviceAccounts optional: the Kubernetes service accounts ({@code namespace/name}) whose
 *     tokens act for the tenant, at most 100, each listed by no other tenant
 * @param approval optional: the least approval policy of the tenant's agent sessions, {@code off}
 *     (the default), {@code external} or {@code all}
 */
public record PutTenantBody(
    List<String> workloadTypes,
    Integer maxSessions,
    @Nullable String network,
    @Nullable List<String> serviceAccounts,
    @Nullable String approval) {

  public PutTenantBody {
    if (workloadTypes == null) {
      throw StrictJson.missingField("workloadTypes");
    }
    if (maxSessions == null) {
      throw StrictJson.missingField("maxSessions");
    }
    workloadTypes = List.copyOf(workloadTypes);
    TenantFields.checkWorkloadTypes(workloadTypes);
    if (maxSessions < Tenant.MIN_SESSIONS || maxSessions > Tenant.MAX_SESSIONS) {
      throw StrictJson.invalidField(
          "maxSessions",
          "must be between " + Tenant.MIN_SESSIONS + " and " + Tenant.MAX_SESSIONS,
          maxSessions);
    }
    TenantFields.checkNetwork(network);
    if (serviceAccounts != null) {
      TenantFields.serviceAccounts(serviceAccounts);
    }
    if (approval != null) {
      try {
        ApprovalPolicy.parse(approval);
      } catch (dev.berth.core.error.InvalidValueException e) {
        throw StrictJson.invalidField("approval", "must be off, external or all", approval);
      }
    }
  }

  /**
   * The tenant this body describes.
   *
   * @param createdAt its creation time if it is new (an existing tenant keeps its own)
   */
  public Tenant tenant(String tenant, Instant createdAt) {
    TenantFields.checkTenant(tenant);
    Set<ServiceAccount> accounts =
        serviceAccounts == null ? Set.of() : TenantFields.serviceAccounts(serviceAccounts);
    NetworkAccess access = TenantFields.networkAccess(network);
    return new Tenant(
        new TenantId(tenant),
        workloadTypes.stream().map(WorkloadType::new).collect(Collectors.toSet()),
        maxSessions,
        createdAt,
        access,
        accounts,
        approval == null ? ApprovalPolicy.OFF : ApprovalPolicy.parse(approval));
  }
}
