package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pod a runtime spec becomes: its identity, its agent's command, and its confinement. */
class RuntimePodsTest {
  private static final SessionId SESSION = new SessionId("ab".repeat(16));
  private static final RuntimeSpec SPEC =
      new RuntimeSpec(
          RuntimeRef.planned("kubernetes", SESSION, 3),
          WorkloadType.SHELL,
          new OwnershipLabels("inst-1", SESSION, 3));
  private static final PodTemplate TEMPLATE =
      new PodTemplate(
          "sessions",
          "registry.example/berth:1.2.3",
          List.of("berth"),
          8090,
          new PodTemplate.Resources("250m", "256Mi", "1", "1Gi"),
          Optional.of("berth-session"),
          Optional.of("10Gi"));

  private final Pod pod = RuntimePods.pod(SPEC, TEMPLATE);
  private final Container agent = pod.getSpec().getContainers().getFirst();

  @Test
  void thePodIsNamedAfterTheRuntimeAndCarriesItsOwnershipLabelsAndAnnotations() {
    assertThat(pod.getMetadata().getName()).isEqualTo("berth-" + SESSION.value() + "-3");
    assertThat(pod.getMetadata().getNamespace()).isEqualTo("sessions");
    assertThat(pod.getMetadata().getLabels()).isEqualTo(SPEC.labels().asMap());
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry("berth.dev/installation", "inst-1")
        .containsEntry("berth.dev/session", SESSION.value())
        .containsEntry("berth.dev/incarnation", "3");
  }

  @Test
  void theAgentRunsBerthAgentForTheSessionWithItsTokenFromTheRuntimesSecret() {
    assertThat(pod.getSpec().getContainers()).hasSize(1);
    assertThat(agent.getName()).isEqualTo("agent");
    assertThat(agent.getImage()).isEqualTo("registry.example/berth:1.2.3");
    assertThat(agent.getCommand()).containsExactly("berth");
    assertThat(agent.getArgs())
        .containsExactly(
            "agent",
            "--session",
            SESSION.value(),
            "--incarnation",
            "3",
            "--installation",
            "inst-1",
            "--state-dir",
            "/var/lib/berth",
            "--listen",
            "0.0.0.0:8090");
    assertThat(agent.getEnv())
        .singleElement()
        .satisfies(
            env -> {
              assertThat(env.getName()).isEqualTo("BERTH_AGENT_TOKEN");
              assertThat(env.getValue()).isNull();
              assertThat(env.getValueFrom().getSecretKeyRef().getName())
                  .isEqualTo(RuntimePods.secretName(SPEC.runtime().name()));
              assertThat(env.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("token");
            });
    assertThat(agent.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(agent.getPorts())
        .singleElement()
        .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(8090));
  }

  @Test
  void aResumesPodTellsItsAgentToAwaitTheArchiveAndAFreshOneDoesNot() {
    RuntimeSpec resume = new RuntimeSpec(SPEC.runtime(), SPEC.workload(), SPEC.labels(), true);

    assertThat(RuntimePods.pod(resume, TEMPLATE).getSpec().getContainers().getFirst().getArgs())
        .endsWith("--listen", "0.0.0.0:8090", "--await-restore");
    assertThat(agent.getArgs()).doesNotContain("--await-restore");
  }

  @Test
  void thePodsAgentIsToldTheDisconnectPolicyItsLeaseHoldsItToAndNoneWithoutOne() {
    Pod keeping =
        RuntimePods.withDisconnect(
            RuntimePods.pod(SPEC, TEMPLATE),
            Optional.of(
                dev.berth.core.tenant.DisconnectGrant.keepFor(java.time.Duration.ofMinutes(30))));
    Pod stopping =
        RuntimePods.withDisconnect(
            RuntimePods.pod(SPEC, TEMPLATE),
            Optional.of(dev.berth.core.tenant.DisconnectGrant.stop()));

    assertThat(keeping.getSpec().getContainers().getFirst().getArgs())
        .endsWith("--disconnect-policy", "continue", "--disconnect-grace", "1800s");
    assertThat(stopping.getSpec().getContainers().getFirst().getArgs())
        .endsWith("--disconnect-policy", "stop", "--disconnect-grace", "0s");
    assertThat(RuntimePods.withDisconnect(RuntimePods.pod(SPEC, TEMPLATE), Optional.empty()))
        .isEqualTo(RuntimePods.pod(SPEC, TEMPLATE));
    assertThat(agent.getArgs()).doesNotContain("--disconnect-policy");
  }

  @Test
  void thePodMeetsTheRestrictedPodSecurityStandardAndMountsNoServiceAccountToken() {
    PodSecurityContext podContext = pod.getSpec().getSecurityContext();
    assertThat(podContext.getRunAsNonRoot()).isTrue();
    assertThat(podContext.getRunAsUser()).isEqualTo(1000L);
    assertThat(podContext.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    SecurityContext container = agent.getSecurityContext();
    assertThat(container.getRunAsNonRoot()).isTrue();
    assertThat(container.getRunAsUser()).isEqualTo(1000L);
    assertThat(container.getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getPrivileged()).isFalse();
    assertThat(container.getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(container.getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(container.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("berth-session");
    assertThat(pod.getSpec().getEnableServiceLinks()).isFalse();
    assertThat(pod.getSpec().getHostNetwork()).isNull();
  }

  @Test
  void theStateDirectoryAndTmpAreEmptyDirsSinceTheRootFilesystemIsReadOnly() {
    assertThat(pod.getSpec().getVolumes())
        .extracting(Volume::getName, v -> v.getEmptyDir() != null)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("state", true),
            org.assertj.core.groups.Tuple.tuple("tmp", true));
    assertThat(
            pod.getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals("state"))
                .findFirst()
                .orElseThrow()
                .getEmptyDir()
                .getSizeLimit())
        .isEqualTo(new Quantity("10Gi"));
    assertThat(agent.getVolumeMounts())
        .extracting(VolumeMount::getName, VolumeMount::getMountPath)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("state", "/var/lib/berth"),
            org.assertj.core.groups.Tuple.tuple("tmp", "/tmp"));
  }

  @Test
  void theAgentHasRequestsAndLimitsAndThePodRestartsOnlyAFailedAgentWithoutADeadline() {
    assertThat(agent.getResources().getRequests())
        .containsEntry("cpu", new Quantity("250m"))
        .containsEntry("memory", new Quantity("256Mi"));
    assertThat(agent.getResources().getLimits())
        .containsEntry("cpu", new Quantity("1"))
        .containsEntry("memory", new Quantity("1Gi"));
    assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("OnFailure");
    assertThat(pod.getSpec().getActiveDeadlineSeconds()).isNull();
  }

  @Test
  void theTokenSecretCarriesTheSameOwnershipLabelsAndTheToken() {
    Secret secret = RuntimePods.secret(SPEC, TEMPLATE, "t".repeat(43));

    assertThat(secret.getMetadata().getName()).isEqualTo(SPEC.runtime().name() + "-token");
    assertThat(secret.getMetadata().getNamespace()).isEqualTo("sessions");
    assertThat(secret.getMetadata().getLabels()).isEqualTo(SPEC.labels().asMap());
    assertThat(secret.getStringData()).containsEntry("token", "t".repeat(43));
  }
}
