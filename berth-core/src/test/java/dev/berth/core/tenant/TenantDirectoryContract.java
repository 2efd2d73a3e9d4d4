package dev.berth.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link TenantDirectory} adapter must pass, unchanged: an adapter's test
 * extends this class and only says how to build its directory.
 */
public abstract class TenantDirectoryContract {
  private static final Instant T0 = Instant.parse("2026-11-29T10:00:00.123456789Z");
  private static final TenantId ACME = new TenantId("acme");
  private static final TenantId BETA = new TenantId("beta");
  private static final WorkloadType CLAUDE = new WorkloadType("claude-code");

  protected TenantDirectory directory;

  /** A fresh, empty directory. */
  protected abstract TenantDirectory newDirectory() throws Exception;

  /** Frees what {@link #newDirectory} allocated. */
  protected void closeDirectory(TenantDirectory d) throws Exception {}

  @BeforeEach
  void setUpDirectory() throws Exception {
    directory = newDirectory();
  }

  @AfterEach
  void tearDownDirectory() throws Exception {
    closeDirectory(directory);
  }

  private static Tenant tenant(TenantId id, int maxSessions, Instant at, WorkloadType... types) {
    return new Tenant(id, Set.of(types), maxSessions, at);
  }

  private static TokenRecord token(String clear, TenantId tenant) {
    return new TokenRecord(TokenDigest.of(clear), tenant, T0.plusSeconds(1));
  }

  // ---- tenants --------------------------------------------------------------------------------

  @Test
  void createsATenantAndReadsItBack() {
    Tenant acme = tenant(ACME, 2, T0, WorkloadType.SHELL, CLAUDE);
    assertThat(directory.upsertTenant(acme)).isEqualTo(acme);
    assertThat(directory.tenant(ACME)).contains(acme);
  }

  @Test
  void answersEmptyForAnUnknownTenant() {
    assertThat(directory.tenant(ACME)).isEmpty();
    assertThat(directory.tenants()).isEmpty();
  }

  @Test
  void anUpdateReplacesGrantsAndQuotaButKeepsTheFirstCreationTime() {
    directory.upsertTenant(tenant(ACME, 2, T0, WorkloadType.SHELL, CLAUDE));
    Tenant updated = directory.upsertTenant(tenant(ACME, 5, T0.plusSeconds(60), CLAUDE));
    Tenant expected = tenant(ACME, 5, T0, CLAUDE);
    assertThat(updated).isEqualTo(expected);
    assertThat(directory.tenant(ACME)).contains(expected);
    assertThat(directory.tenants()).containsExactly(expected);
  }

  @Test
  void aTenantsNetworkGrantIsKeptAndAnUpdateReplacesIt() {
    Tenant offline =
        new Tenant(ACME, java.util.Set.of(WorkloadType.SHELL), 2, T0, NetworkAccess.NONE);
    assertThat(directory.upsertTenant(offline).network()).isEqualTo(NetworkAccess.NONE);
    assertThat(directory.tenant(ACME).orElseThrow().network()).isEqualTo(NetworkAccess.NONE);

    directory.upsertTenant(tenant(ACME, 2, T0.plusSeconds(5), WorkloadType.SHELL));

    assertThat(directory.tenant(ACME).orElseThrow().network()).isEqualTo(NetworkAccess.EGRESS);
  }

  @Test
  void listsEveryTenantOrderedById() {
    directory.upsertTenant(tenant(BETA, 1, T0, WorkloadType.SHELL));
    directory.upsertTenant(tenant(new TenantId("zeta"), 1, T0, WorkloadType.SHELL));
    directory.upsertTenant(tenant(ACME, 1, T0.plusSeconds(9), WorkloadType.SHELL));
    assertThat(directory.tenants())
        .extracting(Tenant::id)
        .containsExactly(ACME, BETA, new TenantId("zeta"));
  }

  @Test
  void keepsTheExtremesOfTheQuota() {
    directory.upsertTenant(tenant(ACME, Tenant.MIN_SESSIONS, T0, WorkloadType.SHELL));
    directory.upsertTenant(tenant(BETA, Tenant.MAX_SESSIONS, T0, WorkloadType.SHELL));
    assertThat(directory.tenant(ACME).orElseThrow().maxSessions()).isEqualTo(1);
    assertThat(directory.tenant(BETA).orElseThrow().maxSessions()).isEqualTo(10_000);
  }

  @Test
  void concurrentUpsertsOfOneNewTenantLeaveExactlyOneRecord() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Tenant>> results = new ArrayList<>();
      for (int i = 1; i <= 8; i++) {
        int quota = i;
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return directory.upsertTenant(
                      tenant(ACME, quota, T0.plusSeconds(quota), WorkloadType.SHELL));
                }));
      }
      start.countDown();
      List<Instant> createdAts = new ArrayList<>();
      for (Future<Tenant> r : results) {
        createdAts.add(r.get().createdAt());
      }
      assertThat(directory.tenants()).hasSize(1);
      assertThat(createdAts).containsOnly(directory.tenant(ACME).orElseThrow().createdAt());
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- service accounts -----------------------------------------------------------------------

  private static final ServiceAccount BUILDER = new ServiceAccount("ci", "builder");
  private static final ServiceAccount RUNNER = new ServiceAccount("ci", "runner.v2");

  private static Tenant listing(TenantId id, ServiceAccount... accounts) {
    return tenant(id, 2, T0, WorkloadType.SHELL).withServiceAccounts(Set.of(accounts));
  }

  @Test
  void aTenantIsFoundByAServiceAccountItLists() {
    Tenant acme = directory.upsertTenant(listing(ACME, BUILDER, RUNNER));

    assertThat(acme.serviceAccounts()).containsExactly(BUILDER, RUNNER);
    assertThat(directory.tenantListing(BUILDER)).contains(acme);
    assertThat(directory.tenantListing(RUNNER)).contains(acme);
    assertThat(directory.tenant(ACME)).contains(acme);
    assertThat(directory.tenants()).containsExactly(acme);
  }

  @Test
  void aServiceAccountNoTenantListsFindsNothing() {
    directory.upsertTenant(listing(ACME, BUILDER));

    assertThat(directory.tenantListing(new ServiceAccount("ci", "other"))).isEmpty();
    assertThat(directory.tenantListing(new ServiceAccount("cd", "builder"))).isEmpty();
  }

  @Test
  void anUpdateReplacesTheServiceAccountsSoADroppedOneActsForNobody() {
    directory.upsertTenant(listing(ACME, BUILDER, RUNNER));

    directory.upsertTenant(listing(ACME, RUNNER));

    assertThat(directory.tenantListing(BUILDER)).isEmpty();
    assertThat(directory.tenantListing(RUNNER).orElseThrow().id()).isEqualTo(ACME);
    assertThat(directory.tenant(ACME).orElseThrow().serviceAccounts()).containsExactly(RUNNER);
  }

  @Test
  void aServiceAccountAnotherTenantListsIsRefusedAndNothingIsWritten() {
    directory.upsertTenant(listing(ACME, BUILDER));
    directory.upsertTenant(tenant(BETA, 3, T0, WorkloadType.SHELL));

    assertThatThrownBy(() -> directory.upsertTenant(listing(BETA, RUNNER, BUILDER)))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("service account ci/builder of tenant acme")
        .hasMessageContaining("remove it from tenant acme");

    Tenant beta = directory.tenant(BETA).orElseThrow();
    assertThat(beta.maxSessions()).isEqualTo(3);
    assertThat(beta.serviceAccounts()).isEmpty();
    assertThat(directory.tenantListing(RUNNER)).isEmpty();
    assertThat(directory.tenantListing(BUILDER).orElseThrow().id()).isEqualTo(ACME);
  }

  @Test
  void aServiceAccountFreedByOneTenantCanBeListedByAnother() {
    directory.upsertTenant(listing(ACME, BUILDER));
    directory.upsertTenant(listing(ACME));

    directory.upsertTenant(listing(BETA, BUILDER));

    assertThat(directory.tenantListing(BUILDER).orElseThrow().id()).isEqualTo(BETA);
  }

  @Test
  void anUpsertOfGrantsKeepsTheServiceAccountsTheTenantLists() {
    directory.upsertTenant(listing(ACME, BUILDER));

    Tenant stored = directory.upsertGrants(tenant(ACME, 7, T0.plusSeconds(5), CLAUDE));

    assertThat(stored.maxSessions()).isEqualTo(7);
    assertThat(stored.workloadTypes()).containsExactly(CLAUDE);
    assertThat(stored.createdAt()).isEqualTo(T0);
    assertThat(stored.serviceAccounts()).containsExactly(BUILDER);
    assertThat(directory.tenantListing(BUILDER)).contains(stored);
  }

  @Test
  void aTenantsApprovalPolicyIsReplacedByAWholeGrantAndKeptByAnUpsertOfGrants() {
    Tenant gated =
        directory.upsertTenant(
            tenant(ACME, 3, T0, CLAUDE).withApproval(dev.berth.core.approval.ApprovalPolicy.ALL));

    Tenant afterToken = directory.upsertGrants(tenant(ACME, 4, T0.plusSeconds(5), CLAUDE));
    Tenant replaced = directory.upsertTenant(tenant(ACME, 4, T0.plusSeconds(9), CLAUDE));

    assertThat(gated.approval()).isEqualTo(dev.berth.core.approval.ApprovalPolicy.ALL);
    assertThat(afterToken.approval()).isEqualTo(dev.berth.core.approval.ApprovalPolicy.ALL);
    assertThat(afterToken.maxSessions()).isEqualTo(4);
    assertThat(replaced.approval()).isEqualTo(dev.berth.core.approval.ApprovalPolicy.OFF);
    assertThat(directory.tenant(ACME)).contains(replaced);
  }

  @Test
  void aTenantsDisconnectPolicyIsReplacedByAWholeGrantAndKeptByAnUpsertOfGrants() {
    Tenant keeping =
        directory.upsertTenant(
            tenant(ACME, 3, T0, CLAUDE)
                .withDisconnect(
                    java.util.Optional.of(
                        DisconnectGrant.keepFor(java.time.Duration.ofMinutes(5)))));

    Tenant afterToken = directory.upsertGrants(tenant(ACME, 4, T0.plusSeconds(5), CLAUDE));
    Tenant stopping =
        directory.upsertTenant(
            tenant(ACME, 4, T0.plusSeconds(9), CLAUDE)
                .withDisconnect(java.util.Optional.of(DisconnectGrant.stop())));
    Tenant byDefault = directory.upsertTenant(tenant(ACME, 4, T0.plusSeconds(9), CLAUDE));

    assertThat(keeping.disconnect())
        .contains(DisconnectGrant.keepFor(java.time.Duration.ofMinutes(5)));
    assertThat(afterToken.disconnect()).isEqualTo(keeping.disconnect());
    assertThat(stopping.disconnect()).contains(DisconnectGrant.stop());
    assertThat(byDefault.disconnect()).isEmpty();
    assertThat(directory.tenant(ACME)).contains(byDefault);
  }

  @Test
  void anUpsertOfGrantsCreatesANewTenantListingNoServiceAccount() {
    Tenant stored = directory.upsertGrants(listing(BETA, RUNNER));

    assertThat(stored.serviceAccounts()).isEmpty();
    assertThat(directory.tenantListing(RUNNER)).isEmpty();
  }

  @Test
  void concurrentClaimsOfOneServiceAccountByEightTenantsLeaveExactlyOneOwner() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> results = new ArrayList<>();
      for (int i = 1; i <= 8; i++) {
        TenantId id = new TenantId("tenant-" + i);
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  try {
                    directory.upsertTenant(listing(id, BUILDER));
                    return true;
                  } catch (AlreadyExistsException e) {
                    return false;
                  }
                }));
      }
      start.countDown();
      int winners = 0;
      for (Future<Boolean> r : results) {
        winners += r.get() ? 1 : 0;
      }
      assertThat(winners).isEqualTo(1);
      TenantId owner = directory.tenantListing(BUILDER).orElseThrow().id();
      assertThat(directory.tenants())
          .filteredOn(t -> t.serviceAccounts().contains(BUILDER))
          .extracting(Tenant::id)
          .containsExactly(owner);
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- tokens ---------------------------------------------------------------------------------

  @Test
  void findsAStoredTokenByItsDigest() {
    directory.upsertTenant(tenant(ACME, 2, T0, WorkloadType.SHELL));
    TokenRecord record = token("secret-of-acme", ACME);
    directory.addToken(record);
    assertThat(directory.findToken(TokenDigest.of("secret-of-acme"))).contains(record);
  }

  @Test
  void answersEmptyForADigestThatWasNeverStored() {
    directory.upsertTenant(tenant(ACME, 2, T0, WorkloadType.SHELL));
    directory.addToken(token("secret-of-acme", ACME));
    assertThat(directory.findToken(TokenDigest.of("secret-of-acmf"))).isEmpty();
  }

  @Test
  void aTenantMayHoldSeveralTokensEachActingForIt() {
    directory.upsertTenant(tenant(ACME, 2, T0, WorkloadType.SHELL));
    directory.upsertTenant(tenant(BETA, 2, T0, WorkloadType.SHELL));
    directory.addToken(token("one", ACME));
    directory.addToken(token("two", ACME));
    directory.addToken(token("three", BETA));
    assertThat(directory.findToken(TokenDigest.of("one")).orElseThrow().tenant()).isEqualTo(ACME);
    assertThat(directory.findToken(TokenDigest.of("two")).orElseThrow().tenant()).isEqualTo(ACME);
    assertThat(directory.findToken(TokenDigest.of("three")).orElseThrow().tenant()).isEqualTo(BETA);
  }

  @Test
  void rejectsATokenForATenantThatDoesNotExist() {
    assertThatThrownBy(() -> directory.addToken(token("orphan", ACME)))
        .isInstanceOf(NotFoundException.class)
        .hasMessageContaining("tenant acme");
    assertThat(directory.findToken(TokenDigest.of("orphan"))).isEmpty();
  }

  @Test
  void rejectsASecondTokenWithTheSameDigestAndKeepsTheFirst() {
    directory.upsertTenant(tenant(ACME, 2, T0, WorkloadType.SHELL));
    directory.upsertTenant(tenant(BETA, 2, T0, WorkloadType.SHELL));
    TokenRecord first = token("same", ACME);
    directory.addToken(first);
    assertThatThrownBy(() -> directory.addToken(token("same", BETA)))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining(TokenDigest.of("same").hex());
    assertThat(directory.findToken(TokenDigest.of("same"))).contains(first);
  }

  @Test
  void tokensAreListedOldestFirstByDigestAndARevokedOneIsNot() {
    directory.upsertTenant(tenant(ACME, 2, T0, WorkloadType.SHELL));
    directory.upsertTenant(tenant(BETA, 2, T0, WorkloadType.SHELL));
    TokenRecord late = new TokenRecord(TokenDigest.of("late"), BETA, T0.plusSeconds(9));
    directory.addToken(late);
    directory.addToken(token("b", ACME));
    directory.addToken(token("a", ACME));
    directory.revokeToken(TokenDigest.of("b"));
    assertThat(directory.tokens()).containsExactly(token("a", ACME), late);
  }

  @Test
  void aRevokedTokenIsNoLongerFoundAndTheOthersStay() {
    directory.upsertTenant(tenant(ACME, 2, T0, WorkloadType.SHELL));
    directory.addToken(token("old", ACME));
    directory.addToken(token("new", ACME));
    assertThat(directory.revokeToken(TokenDigest.of("old"))).isTrue();
    assertThat(directory.findToken(TokenDigest.of("old"))).isEmpty();
    assertThat(directory.findToken(TokenDigest.of("new"))).isPresent();
    assertThat(directory.revokeToken(TokenDigest.of("old"))).isFalse();
  }

  @Test
  void updatingATenantKeepsItsTokens() {
    directory.upsertTenant(tenant(ACME, 2, T0, WorkloadType.SHELL));
    TokenRecord record = token("kept", ACME);
    directory.addToken(record);
    directory.upsertTenant(tenant(ACME, 3, T0, CLAUDE));
    assertThat(directory.findToken(TokenDigest.of("kept"))).contains(record);
  }
}
