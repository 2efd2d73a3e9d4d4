package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RuntimeChoiceTest {
  private static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);

  @Test
  void localIsTheDefaultAndNeedsNothingElse() {
    assertThat(
            RuntimeChoice.parse(
                "local", Optional.empty(), Optional.empty(), Optional.empty(), Map.of()))
        .isEqualTo(new RuntimeChoice.Local());
  }

  @Test
  void kubernetesTakesItsImageNamespaceAccountAndTheKeyFromTheEnvironmentWithoutShowingIt() {
    RuntimeChoice choice =
        RuntimeChoice.parse(
            "kubernetes",
            Optional.of("sessions"),
            Optional.of("registry.example/berth-agent:1"),
            Optional.of("berth-data-plane"),
            Map.of(RuntimeChoice.TOKEN_KEY_VARIABLE, KEY));

    assertThat(choice)
        .isInstanceOfSatisfying(
            RuntimeChoice.Kubernetes.class,
            k -> {
              assertThat(k.namespace()).contains("sessions");
              assertThat(k.image()).isEqualTo("registry.example/berth-agent:1");
              assertThat(k.serviceAccount()).contains("berth-data-plane");
              assertThat(k.tokenKey()).hasSize(32);
              assertThat(k.toString()).doesNotContain(KEY).contains("hidden");
            });
  }

  @Test
  void kubernetesWithoutAnImageOrAKeyIsRefusedSayingWhatToGive() {
    assertThatThrownBy(
            () ->
                RuntimeChoice.parse(
                    "kubernetes",
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Map.of(RuntimeChoice.TOKEN_KEY_VARIABLE, KEY)))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("--agent-image");
    assertThatThrownBy(
            () ->
                RuntimeChoice.parse(
                    "kubernetes", Optional.empty(), Optional.of("img"), Optional.empty(), Map.of()))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("BERTH_AGENT_TOKEN_KEY")
        .hasMessageContaining("head -c 32 /dev/urandom | base64");
    assertThatThrownBy(
            () ->
                RuntimeChoice.parse(
                    "kubernetes",
                    Optional.empty(),
                    Optional.of("img"),
                    Optional.empty(),
                    Map.of(RuntimeChoice.TOKEN_KEY_VARIABLE, "c2hvcnQ=")))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("at least 32 bytes, held 5");
  }

  @Test
  void anUnknownRuntimeIsRefusedNamingTheChoices() {
    assertThatThrownBy(
            () ->
                RuntimeChoice.parse(
                    "docker", Optional.empty(), Optional.empty(), Optional.empty(), Map.of()))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("--runtime must be local")
        .hasMessageContaining("kubernetes")
        .hasMessageContaining("docker");
  }
}
