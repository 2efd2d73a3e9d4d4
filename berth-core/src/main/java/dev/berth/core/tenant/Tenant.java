package dev.berth.core.tenant;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import java.time.Instant;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A tenant's grants: the workload types it may create and how many sessions it may hold at once
 * (sessions whose reservation is HELD or UNCERTAIN). The tenant {@link TenantId#ADMIN} is reserved
 * for the administrator's own sessions and cannot be a tenant record.
 *
 * @param id the tenant
 * @param workloadTypes the workload types it may create; at least one
 * @param maxSessions how many sessions it may hold, {@value #MIN_SESSIONS} to {@value
 *     #MAX_SESSIONS}
 * @param createdAt when the tenant was first created; an update keeps the first value
 * @param network the most network its sessions may have (narrows the server's mode)
 * @param serviceAccounts the Kubernetes service accounts whose tokens act for this tenant (see
 *     {@link ServiceAccountReview}); a service account is listed by at most one tenant
 * @param approval the least approval policy of its agent sessions' tool calls: it tightens a type's
 *     policy ({@link ApprovalPolicy#atLeast}), never loosens it
 * @param disconnect what its sessions' runtimes do when their control lease expires; empty for the
 *     server's default
 */
public record Tenant(
    TenantId id,
    Set<WorkloadType> workloadTypes,
    int maxSessions,
    Instant createdAt,
    NetworkAccess network,
    Set<ServiceAccount> serviceAccounts,
    ApprovalPolicy approval,
    Optional<DisconnectGrant> disconnect) {

  /** How many service accounts one tenant may list. */
  public static final int MAX_SERVICE_ACCOUNTS = 100;

  public static final int MIN_SESSIONS = 1;
  public static final int MAX_SESSIONS = 10_000;

  public Tenant {
    Objects.requireNonNull(id, "tenant id is required");
    Objects.requireNonNull(workloadTypes, "workloadTypes is required");
    Objects.requireNonNull(createdAt, "createdAt is required");
    Objects.requireNonNull(network, "network is required");
    Objects.requireNonNull(serviceAccounts, "serviceAccounts is required");
    Objects.requireNonNull(approval, "approval is required");
    Objects.requireNonNull(disconnect, "disconnect is required");
    if (id.equals(TenantId.ADMIN)) {
      throw new InvalidValueException(
          "tenant must not be \""
              + TenantId.ADMIN
              + "\": that name is reserved for the administrator's own sessions; pick another"
              + " name");
    }
    if (workloadTypes.isEmpty()) {
      throw new InvalidValueException(
          "workloadTypes of tenant "
              + id
              + " must name at least one workload type, was []; grant e.g. [\""
              + WorkloadType.SHELL
              + "\"]");
    }
    if (maxSessions < MIN_SESSIONS || maxSessions > MAX_SESSIONS) {
      throw new InvalidValueException(
          "maxSessions of tenant "
              + id
              + " must be between "
              + MIN_SESSIONS
              + " and "
              + MAX_SESSIONS
              + ", was "
              + maxSessions);
    }
    if (serviceAccounts.size() > MAX_SERVICE_ACCOUNTS) {
      throw new InvalidValueException(
          "serviceAccounts of tenant "
              + id
              + " may list at most "
              + MAX_SERVICE_ACCOUNTS
              + ", was "
              + serviceAccounts.size()
              + "; give the workloads fewer service accounts");
    }
    workloadTypes = Set.copyOf(workloadTypes);
    serviceAccounts = Collections.unmodifiableSortedSet(new TreeSet<>(serviceAccounts));
  }

  /** A tenant whose sessions get the server's disconnect policy. */
  public Tenant(
      TenantId id,
      Set<WorkloadType> workloadTypes,
      int maxSessions,
      Instant createdAt,
      NetworkAccess network,
      Set<ServiceAccount> serviceAccounts,
      ApprovalPolicy approval) {
    this(
        id,
        workloadTypes,
        maxSessions,
        createdAt,
        network,
        serviceAccounts,
        approval,
        Optional.empty());
  }

  /** A tenant whose grant does not gate its agents' tool calls beyond their types' policies. */
  public Tenant(
      TenantId id,
      Set<WorkloadType> workloadTypes,
      int maxSessions,
      Instant createdAt,
      NetworkAccess network,
      Set<ServiceAccount> serviceAccounts) {
    this(id, workloadTypes, maxSessions, createdAt, network, serviceAccounts, ApprovalPolicy.OFF);
  }

  /** A tenant no service account acts for. */
  public Tenant(
      TenantId id,
      Set<WorkloadType> workloadTypes,
      int maxSessions,
      Instant createdAt,
      NetworkAccess network) {
    this(id, workloadTypes, maxSessions, createdAt, network, Set.of());
  }

  /** A tenant whose sessions get the server's network ({@link NetworkAccess#EGRESS}). */
  public Tenant(TenantId id, Set<WorkloadType> workloadTypes, int maxSessions, Instant createdAt) {
    this(id, workloadTypes, maxSessions, createdAt, NetworkAccess.EGRESS);
  }

  /** This tenant with {@code accounts} as the service accounts that act for it. */
  public Tenant withServiceAccounts(Set<ServiceAccount> accounts) {
    return new Tenant(
        id, workloadTypes, maxSessions, createdAt, network, accounts, approval, disconnect);
  }

  /** This tenant with {@code policy} as the least approval policy of its agent sessions. */
  public Tenant withApproval(ApprovalPolicy policy) {
    return new Tenant(
        id, workloadTypes, maxSessions, createdAt, network, serviceAccounts, policy, disconnect);
  }

  /** This tenant with {@code grant} as its sessions' disconnect policy (empty: the server's). */
  public Tenant withDisconnect(Optional<DisconnectGrant> grant) {
    return new Tenant(
        id, workloadTypes, maxSessions, createdAt, network, serviceAccounts, approval, grant);
  }

  /** Whether the tenant may create sessions of {@code type}. */
  public boolean grants(WorkloadType type) {
    return workloadTypes.contains(type);
  }

  /** The granted types' names in alphabetical order, for messages and storage. */
  public Set<String> workloadTypeNames() {
    Set<String> names = new TreeSet<>();
    workloadTypes.forEach(t -> names.add(t.value()));
    return names;
  }

  /** This tenant with the grants of {@code update} and this tenant's own creation time. */
  public Tenant updatedBy(Tenant update) {
    if (!update.id.equals(id)) {
      throw new InvalidValueException(
          "tenant " + id + " cannot be updated by the record of tenant " + update.id);
    }
    return new Tenant(
        id,
        update.workloadTypes,
        update.maxSessions,
        createdAt,
        update.network,
        update.serviceAccounts,
        update.approval,
        update.disconnect);
  }
}
