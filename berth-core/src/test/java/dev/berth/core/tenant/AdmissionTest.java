package dev.berth.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.ForbiddenException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.QuotaExceededException;
import dev.berth.core.error.WorkloadNotAllowedException;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.Session;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.testing.InMemorySessionStore;
import dev.berth.core.testing.InMemoryTenantDirectory;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdmissionTest {
  private static final TenantId ACME = new TenantId("acme");
  private static final TenantId BETA = new TenantId("beta");
  private static final WorkloadType CLAUDE = new WorkloadType("claude-code");
  private static final Principal AS_ACME = Principal.tenant(ACME);

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
  private final InMemoryTenantDirectory directory = new InMemoryTenantDirectory();
  private final InMemorySessionStore store = new InMemorySessionStore(clock);
  private final Admission admission = new Admission(directory);

  @BeforeEach
  void tenants() {
    directory.upsertTenant(new Tenant(ACME, Set.of(WorkloadType.SHELL), 2, clock.instant()));
    directory.upsertTenant(new Tenant(BETA, Set.of(CLAUDE), 1, clock.instant()));
  }

  private Instant now() {
    return clock.instant();
  }

  private Session held(TenantId tenant) {
    return store.create(TestSessions.requested(tenant, now()));
  }

  private Session uncertain(TenantId tenant) {
    Session ready =
        TestSessions.makeReady(
            TestSessions.requested(tenant, now()).startProvision("sim", now()), now());
    return store.create(ready.runtimeUnreachable(now(), "contact lost"));
  }

  private Session released(TenantId tenant) {
    return store.create(TestSessions.requested(tenant, now()).releaseReservation());
  }

  // ---- create ---------------------------------------------------------------------------------

  @Test
  void aTenantMayCreateAGrantedTypeForItselfBelowItsQuota() {
    admission.checkMayCreate(AS_ACME, WorkloadType.SHELL, ACME, 1);
  }

  @Test
  void aTenantIsRefusedATypeItWasNotGrantedNamingTheTypeTheGrantsAndTheWayOut() {
    assertThatThrownBy(() -> admission.checkMayCreate(AS_ACME, CLAUDE, ACME, 0))
        .isInstanceOf(WorkloadNotAllowedException.class)
        .hasMessage(
            "tenant acme may not create workload type claude-code: it is granted only [shell];"
                + " ask the administrator to grant claude-code to tenant acme")
        .extracting(e -> ((WorkloadNotAllowedException) e).reason())
        .isEqualTo("WORKLOAD_NOT_ALLOWED");
  }

  @Test
  void aTenantAtItsQuotaIsRefusedNamingHeldTheLimitAndTheWayOut() {
    assertThatThrownBy(() -> admission.checkMayCreate(AS_ACME, WorkloadType.SHELL, ACME, 2))
        .isInstanceOf(QuotaExceededException.class)
        .hasMessage(
            "tenant acme holds 2 sessions and may hold at most maxSessions=2: delete a session"
                + " and wait until its runtime is confirmed gone (a slot is freed only then), or"
                + " ask the administrator to raise maxSessions")
        .extracting(e -> ((QuotaExceededException) e).reason())
        .isEqualTo("QUOTA_EXCEEDED");
  }

  @Test
  void aTenantIsRefusedCreatingForAnotherTenantBeforeAnyOtherCheck() {
    assertThatThrownBy(() -> admission.checkMayCreate(AS_ACME, CLAUDE, BETA, 99))
        .isInstanceOf(ForbiddenException.class)
        .hasMessage(
            "tenant acme may not create sessions for tenant beta: a tenant token acts only for"
                + " its own tenant; name no tenant, or use the admin token")
        .extracting(e -> ((ForbiddenException) e).reason())
        .isEqualTo("FORBIDDEN");
  }

  @Test
  void theAdministratorMayCreateForAnExistingTenantUnboundByItsGrantsAndQuota() {
    admission.checkMayCreate(Principal.ADMIN, CLAUDE, ACME, 1000);
    admission.checkMayCreate(Principal.ADMIN, CLAUDE, TenantId.ADMIN, 1000);
  }

  @Test
  void theAdministratorNamingATenantThatDoesNotExistIsInvalidInput() {
    assertThatThrownBy(
            () ->
                admission.checkMayCreate(
                    Principal.ADMIN, WorkloadType.SHELL, new TenantId("nobody"), 0))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("tenant nobody does not exist")
        .hasMessageContaining("POST /api/v1/admin/tokens");
  }

  @Test
  void admitCountsHeldSessionsSoConcurrentCreatesNeverExceedTheQuota() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Session>> results = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return admission.admit(
                      AS_ACME, WorkloadType.SHELL, ACME, store, () -> held(ACME));
                }));
      }
      start.countDown();
      int created = 0;
      int refused = 0;
      for (Future<Session> r : results) {
        try {
          r.get();
          created++;
        } catch (java.util.concurrent.ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(QuotaExceededException.class);
          refused++;
        }
      }
      assertThat(created).isEqualTo(2);
      assertThat(refused).isEqualTo(6);
      assertThat(Admission.held(store, ACME)).isEqualTo(2);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void admitRunsNothingWhenTheChecksFail() {
    assertThatThrownBy(
            () ->
                admission.admit(
                    AS_ACME,
                    CLAUDE,
                    ACME,
                    store,
                    () -> {
                      throw new AssertionError("must not run");
                    }))
        .isInstanceOf(WorkloadNotAllowedException.class);
  }

  @Test
  void admitLetsTheAdministratorCreatePastATenantsQuota() {
    held(BETA);
    Session s = admission.admit(Principal.ADMIN, WorkloadType.SHELL, BETA, store, () -> held(BETA));
    assertThat(s.tenant()).isEqualTo(BETA);
    assertThat(Admission.held(store, BETA)).isEqualTo(2);
  }

  // ---- counting -------------------------------------------------------------------------------

  @Test
  void heldCountsHeldAndUncertainReservationsButNotReleasedOnesNorOtherTenants() {
    held(ACME);
    uncertain(ACME);
    released(ACME);
    held(BETA);
    assertThat(store.get(uncertain(BETA).id()).orElseThrow().reservation())
        .isEqualTo(Reservation.UNCERTAIN);
    assertThat(Admission.held(store, ACME)).isEqualTo(2);
    assertThat(Admission.held(store, BETA)).isEqualTo(2);
    assertThat(Admission.held(store, new TenantId("nobody"))).isZero();
  }

  @Test
  void heldPagesThroughMoreSessionsThanOnePageHolds() {
    for (int i = 0; i < 1001; i++) {
      held(ACME);
    }
    released(ACME);
    assertThat(Admission.held(store, ACME)).isEqualTo(1001);
  }

  // ---- visibility and tenants -----------------------------------------------------------------

  @Test
  void theAdministratorSeesEveryTenantAndATenantOnlyItself() {
    assertThat(admission.maySee(Principal.ADMIN, BETA)).isTrue();
    assertThat(admission.maySee(Principal.ADMIN, TenantId.ADMIN)).isTrue();
    assertThat(admission.maySee(AS_ACME, ACME)).isTrue();
    assertThat(admission.maySee(AS_ACME, BETA)).isFalse();
    assertThat(admission.maySee(AS_ACME, TenantId.ADMIN)).isFalse();
  }

  @Test
  void theAdministratorsSessionsBelongToTheAdminTenantUnlessItNamesAnother() {
    assertThat(admission.tenantFor(Principal.ADMIN, Optional.empty())).isEqualTo(TenantId.ADMIN);
    assertThat(admission.tenantFor(Principal.ADMIN, Optional.of(BETA))).isEqualTo(BETA);
  }

  @Test
  void aTenantsSessionsBelongToItselfAndNamingAnotherIsForbidden() {
    assertThat(admission.tenantFor(AS_ACME, Optional.empty())).isEqualTo(ACME);
    assertThat(admission.tenantFor(AS_ACME, Optional.of(ACME))).isEqualTo(ACME);
    assertThatThrownBy(() -> admission.tenantFor(AS_ACME, Optional.of(BETA)))
        .isInstanceOf(ForbiddenException.class)
        .hasMessageStartingWith("tenant acme may not create sessions for tenant beta");
  }

  @Test
  void aTenantListsOnlyItsOwnSessionsAndTheAdministratorWhatItFilters() {
    assertThat(admission.listScope(Principal.ADMIN, Optional.empty())).isEmpty();
    assertThat(admission.listScope(Principal.ADMIN, Optional.of(BETA))).contains(BETA);
    assertThat(admission.listScope(AS_ACME, Optional.empty())).contains(ACME);
    assertThat(admission.listScope(AS_ACME, Optional.of(ACME))).contains(ACME);
    assertThatThrownBy(() -> admission.listScope(AS_ACME, Optional.of(BETA)))
        .isInstanceOf(ForbiddenException.class)
        .hasMessageStartingWith("tenant acme may not list sessions of tenant beta");
  }

  @Test
  void adminOnlyActionsRefuseATenantNamingTheAction() {
    admission.requireAdmin(Principal.ADMIN, "issue tenant tokens");
    assertThatThrownBy(() -> admission.requireAdmin(AS_ACME, "issue tenant tokens"))
        .isInstanceOf(ForbiddenException.class)
        .hasMessage(
            "tenant acme may not issue tenant tokens: only the administrator may; use the admin"
                + " token");
  }
}
