package dev.berth.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.Principal;
import dev.berth.core.testing.InMemoryTenantDirectory;
import dev.berth.core.testing.MutableClock;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AuthenticatorTest {
  private static final String ADMIN = "aaaaaaaaaaaaaaaa0123456789abcdef0123456789abcdef";
  private static final TenantId ACME = new TenantId("acme");

  private final InMemoryTenantDirectory directory = new InMemoryTenantDirectory();
  private final TenantTokens tokens =
      new TenantTokens(directory, MutableClock.at("2026-11-29T10:00:00Z"), new SplittableRandom(7));
  private final Authenticator authenticator = new Authenticator(ADMIN, directory);

  private Principal bearer(String header) {
    return authenticator.authenticate(Optional.of(header), Optional.empty());
  }

  private String acmeToken() {
    return tokens.issue(ACME, Set.of(WorkloadType.SHELL), 2).token();
  }

  @Test
  void theAdminTokenInABearerHeaderIsTheAdministrator() {
    assertThat(bearer("Bearer " + ADMIN)).isEqualTo(Principal.ADMIN);
  }

  @Test
  void theBearerSchemeIsCaseInsensitiveAndSurroundingSpaceIsIgnored() {
    assertThat(bearer("bearer " + ADMIN)).isEqualTo(Principal.ADMIN);
    assertThat(bearer("  BEARER   " + ADMIN + " ")).isEqualTo(Principal.ADMIN);
  }

  @Test
  void aTenantTokenResolvesToItsTenant() {
    assertThat(bearer("Bearer " + acmeToken())).isEqualTo(Principal.tenant(ACME));
  }

  @Test
  void theCookieIsUsedWhenThereIsNoAuthorizationHeader() {
    String token = acmeToken();
    assertThat(authenticator.authenticate(Optional.empty(), Optional.of(token)))
        .isEqualTo(Principal.tenant(ACME));
    assertThat(authenticator.authenticate(Optional.empty(), Optional.of(ADMIN)))
        .isEqualTo(Principal.ADMIN);
  }

  @Test
  void theHeaderWinsOverTheCookie() {
    assertThat(authenticator.authenticate(Optional.of("Bearer " + ADMIN), Optional.of(acmeToken())))
        .isEqualTo(Principal.ADMIN);
  }

  @Test
  void aMalformedHeaderIsRefusedEvenWithAGoodCookie() {
    assertThatThrownBy(
            () -> authenticator.authenticate(Optional.of("Basic " + ADMIN), Optional.of(ADMIN)))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageContaining("not 'Bearer <token>'");
  }

  @Test
  void aRequestWithoutAnyTokenIsUnauthenticated() {
    assertThatThrownBy(() -> authenticator.authenticate(Optional.empty(), Optional.empty()))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessage(
            "missing or unknown bearer token: the request has no Authorization header; send"
                + " 'Authorization: Bearer <token>' with the admin token or a tenant token")
        .extracting(e -> ((UnauthenticatedException) e).reason())
        .isEqualTo("UNAUTHENTICATED");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "Bearer",
        "Bearer ",
        "Bearer" + ADMIN,
        "Basic dXNlcjpwYXNz",
        "Token abc",
        "Bearer a b",
        "Bearer\tabc",
        "Bearer ab\"c"
      })
  void aHeaderThatIsNotBearerAndOneTokenIsUnauthenticated(String header) {
    assertThatThrownBy(() -> bearer(header))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageStartingWith(UnauthenticatedException.BASE_MESSAGE);
  }

  @Test
  void aTokenThatIsNeitherTheAdminsNorATenantsIsUnauthenticatedWithoutEchoingIt() {
    acmeToken();
    String unknown = "f".repeat(64);
    assertThatThrownBy(() -> bearer("Bearer " + unknown))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageContaining("not the admin token nor a tenant token")
        .message()
        .doesNotContain(unknown);
  }

  @Test
  void aRevokedTenantTokenIsUnauthenticated() {
    String token = acmeToken();
    assertThat(tokens.revoke(token)).isTrue();
    assertThatThrownBy(() -> bearer("Bearer " + token))
        .isInstanceOf(UnauthenticatedException.class);
  }

  @Test
  void nearMissesOfTheAdminTokenAreUnauthenticated() {
    String lastChanged = ADMIN.substring(0, ADMIN.length() - 1) + "0";
    for (String near :
        new String[] {
          ADMIN.substring(0, ADMIN.length() - 1),
          ADMIN + "0",
          lastChanged,
          ADMIN.toUpperCase(Locale.ROOT)
        }) {
      assertThatThrownBy(() -> bearer("Bearer " + near))
          .as(near)
          .isInstanceOf(UnauthenticatedException.class);
    }
  }

  @Test
  void anOverlongTokenIsRefusedBeforeItIsLookedUp() {
    assertThatThrownBy(() -> bearer("Bearer " + "a".repeat(Tokens.MAX_BEARER_LENGTH + 1)))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageContaining("too long");
  }

  @Test
  void keepsOnlyTheDigestOfTheAdminTokenAndComparesDigests() throws Exception {
    for (Field f : Authenticator.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers())) {
        continue;
      }
      f.setAccessible(true);
      Object value = f.get(authenticator);
      assertThat(value).as(f.getName()).isNotInstanceOf(String.class);
      if (value instanceof byte[] bytes) {
        assertThat(bytes).hasSize(32);
        assertThat(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1))
            .doesNotContain(ADMIN);
      }
    }
    assertThat(Arrays.stream(Authenticator.class.getDeclaredFields()).map(Field::getType))
        .contains(byte[].class);
  }
}
