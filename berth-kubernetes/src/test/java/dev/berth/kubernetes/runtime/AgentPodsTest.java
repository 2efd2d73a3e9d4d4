package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.AgentModel;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An agent session's pod: the agent container runs {@code berth agent} with the CLI, model and
 * plugins of the image and the proxy's loopback address, and the {@code proxy} container runs
 * {@code berth proxy} with the provider and its token from the operator's Secret, which only it
 * gets.
 */
class AgentPodsTest {
  private static final SessionId SESSION = new SessionId("cd".repeat(16));
  private static final RuntimeSpec SPEC =
      new RuntimeSpec(
          RuntimeRef.planned("kubernetes", SESSION, 2),
          new WorkloadType("claude-code"),
          Optional.of(new AgentModel("claude-sonnet-4-5")),
          List.of(),
          new OwnershipLabels("inst-1", SESSION, 2),
          false);
  private static final PodTemplate TEMPLATE =
      new PodTemplate(
          "sessions",
          "registry.example/berth:1.2.3",
          List.of("berth"),
          8090,
          PodTemplate.Resources.defaults(),
          Optional.empty(),
          Optional.empty());
  private static final PodAgent AGENT =
      new PodAgent(
          "/opt/berth/agent-clis/node_modules/.bin/claude",
          "claude-sonnet-4-5",
          List.of(new PodAgent.Plugin("hello", "/opt/berth/plugins/hello")),
          new PodAgent.Provider(
              "https://api.anthropic.com",
              "anthropic",
              Optional.empty(),
              Optional.of("/etc/ssl/provider-ca.pem"),
              PodAgent.SecretRef.parse("berth-provider-claude-code/token")));

  private final Pod pod = RuntimePods.pod(SPEC, TEMPLATE, Optional.of(AGENT));
  private final Container agent = container("agent");
  private final Container proxy = container("proxy");

  @Test
  void theAgentContainerRunsTheCliOfTheImageAgainstTheProxyOnThePodsLoopback() {
    assertThat(pod.getSpec().getContainers())
        .extracting(Container::getName)
        .containsExactly("agent", "proxy");
    assertThat(agent.getArgs())
        .containsSubsequence("agent", "--session", SESSION.value())
        .endsWith(
            "--workload",
            "claude-code",
            "--agent-cli",
            "/opt/berth/agent-clis/node_modules/.bin/claude",
            "--model",
            "claude-sonnet-4-5",
            "--plugin",
            "hello=/opt/berth/plugins/hello",
            "--proxy",
            "http://127.0.0.1:8091");
  }

  @Test
  void onlyTheProxyContainerIsGivenTheProviderTokenAndTheAgentContainerOnlyItsOwnToken() {
    assertThat(agent.getEnv()).extracting(EnvVar::getName).containsExactly("BERTH_AGENT_TOKEN");
    assertThat(agent.getEnv().getFirst().getValueFrom().getSecretKeyRef().getName())
        .isEqualTo(SPEC.runtime().name() + "-token");
    assertThat(proxy.getArgs())
        .containsExactly("proxy", "--session", SESSION.value(), "--listen", "127.0.0.1:8091");
    assertThat(proxy.getEnv())
        .filteredOn(e -> e.getValue() != null)
        .extracting(EnvVar::getName, EnvVar::getValue)
        .contains(
            org.assertj.core.groups.Tuple.tuple(
                "BERTH_PROXY_BASE_URL", "https://api.anthropic.com"),
            org.assertj.core.groups.Tuple.tuple("BERTH_PROXY_API", "anthropic"),
            org.assertj.core.groups.Tuple.tuple("BERTH_PROXY_CA_FILE", "/etc/ssl/provider-ca.pem"));
    EnvVar token =
        proxy.getEnv().stream()
            .filter(e -> e.getName().equals("BERTH_PROXY_TOKEN"))
            .findFirst()
            .orElseThrow();
    assertThat(token.getValue()).isNull();
    assertThat(token.getValueFrom().getSecretKeyRef().getName())
        .isEqualTo("berth-provider-claude-code");
    assertThat(token.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("token");
    assertThat(token.getValueFrom().getSecretKeyRef().getOptional()).isFalse();
  }

  @Test
  void theProxyRunsAsItsOwnUserConfinedAndIsReadyOnlyWhenItAnswersForThisSession() {
    SecurityContext context = proxy.getSecurityContext();
    assertThat(context.getRunAsUser()).isEqualTo(65532L);
    assertThat(context.getRunAsNonRoot()).isTrue();
    assertThat(context.getReadOnlyRootFilesystem()).isTrue();
    assertThat(context.getAllowPrivilegeEscalation()).isFalse();
    assertThat(context.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(context.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(proxy.getVolumeMounts())
        .extracting(VolumeMount::getName, VolumeMount::getMountPath)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("proxy-tmp", "/tmp"));
    assertThat(pod.getSpec().getVolumes()).extracting(Volume::getName).contains("proxy-tmp");
    assertThat(proxy.getReadinessProbe().getExec().getCommand())
        .hasSize(3)
        .startsWith("node", "-e")
        .last()
        .asString()
        .contains("http://127.0.0.1:8091/healthz", "'" + SESSION.value() + "'");
    assertThat(pod.getSpec().getShareProcessNamespace()).isNull();
  }

  @Test
  void aShellsPodKeepsItsOneContainer() {
    RuntimeSpec shell = new RuntimeSpec(SPEC.runtime(), WorkloadType.SHELL, SPEC.labels(), false);
    assertThat(RuntimePods.pod(shell, TEMPLATE).getSpec().getContainers())
        .extracting(Container::getName)
        .containsExactly("agent");
  }

  private Container container(String name) {
    return pod.getSpec().getContainers().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
