package dev.berth.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.Principal;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.tenant.TokenDigest;
import dev.berth.core.tenant.TokenRecord;
import dev.berth.core.testing.InMemoryTenantDirectory;
import dev.berth.core.testing.MutableClock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TenantTokensTest {
  private static final TenantId ACME = new TenantId("acme");
  private static final WorkloadType CLAUDE = new WorkloadType("claude-code");

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
  private final InMemoryTenantDirectory directory = new InMemoryTenantDirectory();
  private final TenantTokens tokens = new TenantTokens(directory, clock, new SplittableRandom(7));
  private final Authenticator authenticator = new Authenticator("x".repeat(32), directory);

  @Test
  void issuesA256BitHexTokenThatAuthenticatesAsItsTenant() {
    IssuedToken issued = tokens.issue(ACME, Set.of(WorkloadType.SHELL), 2);
    assertThat(issued.token()).matches("[0-9a-f]{64}");
    assertThat(issued.tenant())
        .isEqualTo(new Tenant(ACME, Set.of(WorkloadType.SHELL), 2, clock.instant()));
    assertThat(
            authenticator.authenticate(Optional.of("Bearer " + issued.token()), Optional.empty()))
        .isEqualTo(Principal.tenant(ACME));
  }

  @Test
  void storesOnlyTheDigestOfTheIssuedToken() {
    IssuedToken issued = tokens.issue(ACME, Set.of(WorkloadType.SHELL), 2);
    assertThat(directory.findToken(TokenDigest.of(issued.token())))
        .contains(new TokenRecord(TokenDigest.of(issued.token()), ACME, clock.instant()));
  }

  @Test
  void issuingAgainUpdatesTheGrantsAndKeepsTheEarlierTokenValid() {
    IssuedToken first = tokens.issue(ACME, Set.of(WorkloadType.SHELL), 2);
    clock.advance(Duration.ofMinutes(5));
    IssuedToken second = tokens.issue(ACME, Set.of(CLAUDE), 4);
    assertThat(second.token()).isNotEqualTo(first.token());
    assertThat(second.tenant())
        .isEqualTo(new Tenant(ACME, Set.of(CLAUDE), 4, first.tenant().createdAt()));
    assertThat(directory.tenant(ACME)).contains(second.tenant());
    assertThat(authenticator.authenticateToken(first.token())).isEqualTo(Principal.tenant(ACME));
    assertThat(authenticator.authenticateToken(second.token())).isEqualTo(Principal.tenant(ACME));
  }

  @Test
  void refusesAQuotaOutsideItsRangeAndStoresNothing() {
    assertThatThrownBy(() -> tokens.issue(ACME, Set.of(WorkloadType.SHELL), 0))
        .isInstanceOf(InvalidValueException.class)
        .hasMessage("maxSessions of tenant acme must be between 1 and 10000, was 0");
    assertThat(directory.tenants()).isEmpty();
  }

  @Test
  void refusesToIssueATenantTokenForTheAdministratorsOwnTenant() {
    assertThatThrownBy(() -> tokens.issue(TenantId.ADMIN, Set.of(WorkloadType.SHELL), 1))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("reserved for the administrator");
  }

  @Test
  void theIssuedTokenIsLeftOutOfItsStringForm() {
    IssuedToken issued = tokens.issue(ACME, Set.of(WorkloadType.SHELL), 2);
    assertThat(issued.toString()).doesNotContain(issued.token()).contains("acme");
  }

  @Test
  void revokingATokenStopsItAuthenticatingAndTellsWhetherItExisted() {
    IssuedToken issued = tokens.issue(ACME, Set.of(WorkloadType.SHELL), 2);
    assertThat(tokens.revoke(issued.token())).isTrue();
    assertThat(tokens.revoke(issued.token())).isFalse();
    assertThatThrownBy(() -> authenticator.authenticateToken(issued.token()))
        .isInstanceOf(UnauthenticatedException.class);
  }
}
