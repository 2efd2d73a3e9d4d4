package dev.berth.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ServiceAccountTest {

  @Test
  void isWrittenAndParsedAsNamespaceSlashName() {
    ServiceAccount account = ServiceAccount.parse("ci/builder.v2");

    assertThat(account).isEqualTo(new ServiceAccount("ci", "builder.v2"));
    assertThat(account.toString()).isEqualTo("ci/builder.v2");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"builder", "ci/", "/builder", "a/b/c", "CI/builder", "ci/Builder", "ci/-x"})
  void aMalformedServiceAccountIsRefusedNamingTheValue(String text) {
    assertThatThrownBy(() -> ServiceAccount.parse(text))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining(text.isEmpty() ? "\"\"" : "\"");
  }

  @Test
  void aNamespaceLongerThanADnsLabelIsRefused() {
    assertThatThrownBy(() -> new ServiceAccount("n".repeat(64), "builder"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("1-63 lowercase letters");
  }

  @Test
  void theApiServersUsernameOfAServiceAccountNamesIt() {
    assertThat(ServiceAccount.fromUsername("system:serviceaccount:ci:builder"))
        .contains(new ServiceAccount("ci", "builder"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "alice",
        "system:node:worker-1",
        "system:serviceaccount:ci",
        "system:serviceaccount:ci:builder:extra",
        "system:serviceaccount:CI:builder",
        "system:serviceaccounts:ci:builder"
      })
  void aUsernameThatIsNotAServiceAccountsNamesNone(String username) {
    assertThat(ServiceAccount.fromUsername(username)).isEmpty();
  }

  @Test
  void serviceAccountsSortByTheirWrittenForm() {
    assertThat(ServiceAccount.parse("a/z").compareTo(ServiceAccount.parse("b/a"))).isNegative();
  }
}
