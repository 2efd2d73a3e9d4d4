package dev.berth.kubernetes.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.approval.Approval;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.approval.ApprovalState;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionKind;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.Session;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.Lease;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.tenant.TokenDigest;
import dev.berth.core.tenant.TokenRecord;
import dev.berth.core.testing.TestSessions;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Drives every part of the store on Kubernetes through every kind of call it makes to the API
 * server, as a server on {@code --store kubernetes://NAMESPACE} does: for tests that record those
 * calls (the RBAC test holds the control plane's Role to them).
 */
public final class StoreCalls {

  private StoreCalls() {}

  /** Opens every part of the store in {@code namespace} on {@code client} and uses each. */
  public static void driveEverything(KubernetesClient client, String namespace) throws Exception {
    Clock clock = Clock.systemUTC();
    String installation =
        ConfigMapInstallation.readOrRecord(client, namespace, () -> "berth-rbac-store");
    Session session =
        driveSessions(new ConfigMapSessionStore(client, namespace, installation, clock));
    driveTenants(new ConfigMapTenantDirectory(client, namespace, installation), clock.instant());
    driveApprovals(new ConfigMapApprovals(client, namespace, installation), session, clock);
    assertThat(
            new LeaseDuties(client, namespace, installation, clock).hold("idle-scan", "a", ttl()))
        .isTrue();
    assertThat(
            new LeaseAdmissionLock(client, namespace, installation, clock)
                .holding(new TenantId("acme"), () -> "admitted"))
        .isEqualTo("admitted");
    new ConfigMapClaims(client, namespace, installation, clock)
        .claim("berth-local-runtime", "server-a", false, "refused")
        .close();
  }

  private static Session driveSessions(ConfigMapSessionStore store) {
    Instant now = Instant.now();
    Session session = store.create(TestSessions.requested(now));
    Lease lease = store.leases().acquire(session.id(), "server-a", ttl()).orElseThrow();
    Session moved = store.compareAndSet(session, 1, lease.token());
    store.touch(session.id(), now.plusSeconds(1));
    store.leases().renew(lease, ttl());
    Operation op =
        store.createOperation(
            Operation.pending(
                OperationId.of(session.id(), OperationType.PROVISION, 1),
                session.id(),
                OperationType.PROVISION,
                1,
                now,
                now.plusSeconds(600)));
    assertThat(store.unfinishedOperations()).contains(op);
    store.createExecution(
        Execution.queued(
            ExecutionId.generate(new SplittableRandom(7)),
            session.id(),
            ExecutionKind.COMMAND,
            "make test",
            1,
            Optional.empty(),
            now));
    assertThat(store.listExecutions(session.id())).hasSize(1);
    store.append(AuditEvent.of(session.id(), now, "tester", "session.test", "detail"));
    assertThat(store.allEvents(0, 10)).isNotEmpty();
    assertThat(store.list(SessionQuery.all(10))).isNotNull();
    assertThat(store.countByPhase()).isNotEmpty();
    store.checkReachable();
    store.checkMigrated();
    store.leases().release(lease);
    return moved;
  }

  private static void driveTenants(ConfigMapTenantDirectory directory, Instant now) {
    TenantId acme = new TenantId("acme");
    directory.upsertTenant(
        new Tenant(acme, Set.of(WorkloadType.SHELL), 2, now)
            .withServiceAccounts(Set.of(new ServiceAccount("ci", "builder"))));
    TokenDigest digest = TokenDigest.of("rbac-token");
    directory.addToken(new TokenRecord(digest, acme, now));
    assertThat(directory.tokens()).hasSize(1);
    assertThat(directory.revokeToken(digest)).isTrue();
  }

  private static void driveApprovals(ConfigMapApprovals approvals, Session session, Clock clock) {
    Instant now = clock.instant();
    Approval asked =
        approvals.createIfAbsent(
            Approval.pending(
                ApprovalId.of(session.id(), "ab".repeat(16)),
                session.tenant(),
                "WebFetch",
                "sha256:" + "ab".repeat(32),
                "{}",
                "acme",
                now,
                now.plusSeconds(600)));
    assertThat(approvals.countAllPending()).isEqualTo(1);
    assertThat(
            approvals.end(asked.ended(ApprovalState.Event.APPROVE, Optional.empty(), "admin", now)))
        .isTrue();
  }

  private static Duration ttl() {
    return Duration.ofSeconds(30);
  }
}
