package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.session.FailureReason;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An agent session's pod as its status says: Running only with both containers ready (the agent's
 * readiness includes seeing its proxy answer for the session), and stuck on the provider Secret it
 * refers to as CREDENTIAL_REFERENCE, as a kubelet words it.
 */
class AgentPodStatesTest {
  private static final Optional<String> ENDPOINT =
      Optional.of("http://10.0.0.7:8090/v1/sessions/x");
  private static final PodAgent AGENT =
      new PodAgent(
          "/opt/cli",
          "platform-default",
          List.of(),
          new PodAgent.Provider(
              "https://api.example",
              "anthropic",
              Optional.empty(),
              Optional.empty(),
              new PodAgent.SecretRef("berth-provider-claude-code", "token")));

  @Test
  void anAgentPodIsRunningOnlyWhenBothItsAgentAndItsProxyAreReady() {
    assertThat(PodStates.observe(pod(ready("agent", true), ready("proxy", true)), ENDPOINT))
        .isEqualTo(new RuntimeObservation.Running(ENDPOINT));
    assertThat(PodStates.observe(pod(ready("agent", true), ready("proxy", false)), ENDPOINT))
        .isEqualTo(new RuntimeObservation.Starting("pod Running, agent ready, proxy not ready"));
    assertThat(PodStates.observe(pod(ready("agent", false), ready("proxy", true)), ENDPOINT))
        .isEqualTo(new RuntimeObservation.Starting("pod Running, agent not ready, proxy ready"));
    assertThat(PodStates.observe(pod(ready("agent", true)), ENDPOINT))
        .isEqualTo(new RuntimeObservation.Starting("pod Running, agent ready, proxy not ready"));
  }

  @Test
  void aProxyStuckOnItsMissingProviderSecretIsACredentialReference() {
    ContainerStatus stuck =
        waiting(
            "proxy",
            "CreateContainerConfigError",
            "secret \"berth-provider-claude-code\" not found");

    assertThat(PodStates.observe(pod(waiting("agent", "ContainerCreating", ""), stuck), ENDPOINT))
        .isEqualTo(
            new RuntimeObservation.Failed(
                FailureReason.CREDENTIAL_REFERENCE,
                "container proxy: CreateContainerConfigError: secret"
                    + " \"berth-provider-claude-code\" not found"));
  }

  @Test
  void aProviderSecretWithoutTheKeyIsACredentialReferenceAndAnyOtherConfigErrorIsNot() {
    ContainerStatus noKey =
        waiting(
            "proxy",
            "CreateContainerConfigError",
            "couldn't find key token in Secret sessions/berth-provider-claude-code");
    ContainerStatus other =
        waiting("agent", "CreateContainerConfigError", "secret \"berth-x-token\" not found");

    assertThat(PodStates.observe(pod(noKey), ENDPOINT))
        .isInstanceOfSatisfying(
            RuntimeObservation.Failed.class,
            f -> assertThat(f.reason()).isEqualTo(FailureReason.CREDENTIAL_REFERENCE));
    assertThat(PodStates.observe(pod(other), ENDPOINT))
        .isInstanceOfSatisfying(
            RuntimeObservation.Failed.class,
            f -> assertThat(f.reason()).isEqualTo(FailureReason.RUNTIME_CONFIG_INVALID));
  }

  private static ContainerStatus ready(String name, boolean ready) {
    return new ContainerStatusBuilder()
        .withName(name)
        .withReady(ready)
        .withNewState()
        .withNewRunning()
        .endRunning()
        .endState()
        .build();
  }

  private static ContainerStatus waiting(String name, String reason, String message) {
    return new ContainerStatusBuilder()
        .withName(name)
        .withReady(false)
        .withNewState()
        .withNewWaiting()
        .withReason(reason)
        .withMessage(message)
        .endWaiting()
        .endState()
        .build();
  }

  /** An agent session's pod (both containers in its spec) with these container statuses. */
  private static Pod pod(ContainerStatus... statuses) {
    dev.berth.core.session.SessionId session =
        new dev.berth.core.session.SessionId("ef".repeat(16));
    dev.berth.core.runtime.RuntimeSpec spec =
        new dev.berth.core.runtime.RuntimeSpec(
            dev.berth.core.session.RuntimeRef.planned("kubernetes", session, 1),
            new dev.berth.core.session.WorkloadType("claude-code"),
            new dev.berth.core.runtime.OwnershipLabels("inst", session, 1));
    Pod made =
        RuntimePods.pod(
            spec,
            new PodTemplate(
                "sessions",
                "berth:test",
                List.of("berth"),
                8090,
                PodTemplate.Resources.defaults(),
                Optional.empty(),
                Optional.empty()),
            Optional.of(AGENT));
    return new PodBuilder(made)
        .withStatus(
            new PodStatusBuilder()
                .withPhase("Running")
                .withPodIP("10.0.0.7")
                .withContainerStatuses(statuses)
                .build())
        .build();
  }
}
