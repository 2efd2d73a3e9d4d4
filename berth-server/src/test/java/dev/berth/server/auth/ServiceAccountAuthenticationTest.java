package dev.berth.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.Principal;
import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.ServiceAccountReview;
import dev.berth.core.tenant.ServiceAccountReview.Authenticated;
import dev.berth.core.tenant.ServiceAccountReview.NotAuthenticated;
import dev.berth.core.tenant.ServiceAccountReview.Unavailable;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.testing.InMemoryTenantDirectory;
import dev.berth.core.testing.MutableClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The authenticator with service account tokens accepted. The cluster's review is scripted here
 * (its HTTP adapter has its own test against the mock API server); what is real is which tokens
 * reach it and what each answer becomes.
 */
class ServiceAccountAuthenticationTest {
  private static final String ADMIN = "aaaaaaaaaaaaaaaa0123456789abcdef0123456789abcdef";
  private static final TenantId ACME = new TenantId("acme");
  private static final ServiceAccount BUILDER = new ServiceAccount("ci", "builder");
  private static final String BUILDER_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJidWlsZGVyIn0.c2ln";
  private static final String STRANGER_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJvdGhlciJ9.c2ln";
  private static final String ORPHAN_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJvcnBoYW4ifQ.c2ln";
  private static final String DOWN_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJkb3duIn0.c2ln";

  private final InMemoryTenantDirectory directory = new InMemoryTenantDirectory();
  private final List<String> reviewed = new ArrayList<>();
  private final Map<String, ServiceAccountReview.Outcome> cluster =
      Map.of(
          BUILDER_JWT, new Authenticated(BUILDER),
          STRANGER_JWT, new NotAuthenticated("invalid bearer token"),
          ORPHAN_JWT, new Authenticated(new ServiceAccount("ci", "orphan")),
          DOWN_JWT, new Unavailable("connection refused"));
  private final ServiceAccountReview review =
      token -> {
        reviewed.add(token);
        return cluster.getOrDefault(token, new NotAuthenticated("unknown"));
      };
  private final Authenticator authenticator =
      new Authenticator(ADMIN, directory, Optional.of(review));

  ServiceAccountAuthenticationTest() {
    directory.upsertTenant(
        new Tenant(ACME, Set.of(WorkloadType.SHELL), 2, Instant.EPOCH)
            .withServiceAccounts(Set.of(BUILDER)));
  }

  private Principal bearer(String token) {
    return authenticator.authenticate(Optional.of("Bearer " + token), Optional.empty());
  }

  @Test
  void aServiceAccountTokenActsForTheTenantListingItsServiceAccount() {
    assertThat(bearer(BUILDER_JWT)).isEqualTo(Principal.tenant(ACME));
  }

  @Test
  void theWebUisCookieMayCarryAServiceAccountTokenToo() {
    assertThat(authenticator.authenticate(Optional.empty(), Optional.of(BUILDER_JWT)))
        .isEqualTo(Principal.tenant(ACME));
  }

  @Test
  void aTokenTheClusterDoesNotVouchForIsUnauthenticatedWithTheClustersReason() {
    assertThatThrownBy(() -> bearer(STRANGER_JWT))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageContaining("the cluster does not vouch for it: invalid bearer token")
        .hasMessageNotContaining(STRANGER_JWT);
  }

  @Test
  void aServiceAccountNoTenantListsIsUnauthenticatedAndNamedWithTheWayOut() {
    assertThatThrownBy(() -> bearer(ORPHAN_JWT))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageContaining("service account ci/orphan")
        .hasMessageContaining("no tenant lists it")
        .hasMessageContaining("PUT /api/v1/admin/tenants/{tenant}");
  }

  @Test
  void aClusterThatCannotBeAskedMakesTheIdentityUnavailableNotUnauthenticated() {
    assertThatThrownBy(() -> bearer(DOWN_JWT))
        .isInstanceOf(IdentityUnavailableException.class)
        .hasMessageContaining("connection refused")
        .satisfies(
            e ->
                assertThat(((IdentityUnavailableException) e).reason())
                    .isEqualTo("IDENTITY_UNAVAILABLE"));
  }

  @Test
  void berthsOwnTokensAndUnknownHexTokensNeverReachTheCluster() {
    TenantTokens tokens =
        new TenantTokens(
            directory, MutableClock.at("2026-12-03T10:00:00Z"), new SplittableRandom(3));
    String tenantToken = tokens.issue(ACME, Set.of(WorkloadType.SHELL), 2).token();

    assertThat(bearer(ADMIN)).isEqualTo(Principal.ADMIN);
    assertThat(bearer(tenantToken)).isEqualTo(Principal.tenant(ACME));
    assertThatThrownBy(() -> bearer("b".repeat(64))).isInstanceOf(UnauthenticatedException.class);

    assertThat(reviewed).isEmpty();
  }

  @Test
  void issuingATokenForATenantKeepsTheServiceAccountsItLists() {
    TenantTokens tokens =
        new TenantTokens(
            directory, MutableClock.at("2026-12-03T10:00:00Z"), new SplittableRandom(3));

    tokens.issue(ACME, Set.of(WorkloadType.SHELL), 4);

    assertThat(directory.tenant(ACME).orElseThrow().serviceAccounts()).containsExactly(BUILDER);
    assertThat(bearer(BUILDER_JWT)).isEqualTo(Principal.tenant(ACME));
  }

  @Test
  void withoutServiceAccountTokensAJwtIsJustAnUnknownToken() {
    Authenticator berthOnly = new Authenticator(ADMIN, directory);

    assertThatThrownBy(
            () -> berthOnly.authenticate(Optional.of("Bearer " + BUILDER_JWT), Optional.empty()))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageContaining("not the admin token nor a tenant token");
    assertThat(reviewed).isEmpty();
  }

  @Test
  void aServiceAccountTokenLongerThanBerthsOwnTokensIsStillAccepted() {
    String longJwt = "eyJhbGciOiJSUzI1NiJ9." + "e".repeat(1500) + ".c2ln";

    assertThatThrownBy(() -> bearer(longJwt)).isInstanceOf(UnauthenticatedException.class);

    assertThat(reviewed).containsExactly(longJwt);
  }
}
