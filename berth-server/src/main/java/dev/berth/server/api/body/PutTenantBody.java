package dev.berth.server.api.body;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.DisconnectGrant;
import dev.berth.core.tenant.NetworkAccess;
import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.Tenant;
import dev.berth.server.api.StrictJson;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
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
 * @param disconnect optional: what the tenant's session runtimes do when their control lease
 *     expires, {@code {"policy":"continue","graceSeconds":N}} or {@code {"policy":"stop"}}; without
 *     it, the server's default
 */
public record PutTenantBody(
    List<String> workloadTypes,
    Integer maxSessions,
    @Nullable String network,
    @Nullable List<String> serviceAccounts,
    @Nullable String approval,
    @Nullable Disconnect disconnect) {

  /** The {@code disconnect} member: a policy and, for {@code continue}, its grace. */
  public record Disconnect(@Nullable String policy, @Nullable Long graceSeconds) {
    public Disconnect {
      if (policy == null) {
        throw StrictJson.missingField("disconnect.policy");
      }
      var unused = grant(policy, graceSeconds);
    }

    DisconnectGrant grant() {
      return grant(java.util.Objects.requireNonNull(policy), graceSeconds);
    }

    private static DisconnectGrant grant(String policy, @Nullable Long graceSeconds) {
      DisconnectGrant.Policy parsed;
      try {
        parsed = DisconnectGrant.Policy.parse(policy);
      } catch (dev.berth.core.error.InvalidValueException e) {
        throw StrictJson.invalidField("disconnect.policy", "must be continue or stop", policy);
      }
      if (parsed == DisconnectGrant.Policy.STOP) {
        if (graceSeconds != null && graceSeconds != 0) {
          throw StrictJson.invalidField(
              "disconnect.graceSeconds", "must be left out (or 0) for stop", graceSeconds);
        }
        return DisconnectGrant.stop();
      }
      if (graceSeconds == null) {
        throw StrictJson.missingField("disconnect.graceSeconds");
      }
      if (graceSeconds < 0 || graceSeconds > DisconnectGrant.MAX_GRACE.toSeconds()) {
        throw StrictJson.invalidField(
            "disconnect.graceSeconds",
            "must be between 0 and " + DisconnectGrant.MAX_GRACE.toSeconds(),
            graceSeconds);
      }
      return DisconnectGrant.keepFor(Duration.ofSeconds(graceSeconds));
    }
  }

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
        approval == null ? ApprovalPolicy.OFF : ApprovalPolicy.parse(approval),
        disconnect == null ? Optional.empty() : Optional.of(disconnect.grant()));
  }
}
