package dev.berth.kubernetes.runtime;

import dev.berth.core.runtime.RuntimeSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSourceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The objects of one runtime: its pod, and the Secret holding its agent's token.
 *
 * <p>The pod runs {@code berth agent} as its only container ({@value #CONTAINER}) under the
 * restricted Pod Security Standard: not root (uid 1000), no privilege escalation, every capability
 * dropped, the runtime's default seccomp profile, a read-only root filesystem with emptyDir volumes
 * for the state directory and {@code /tmp}, and no service account token. Its restart policy is
 * {@code OnFailure}: an agent that crashes is started again in the same pod and finds the session's
 * state volume as it left it, and one that keeps crashing shows as {@code CrashLoopBackOff}, which
 * the runtime reports as failed. An agent that exits cleanly (only on SIGTERM) ends the pod. No
 * {@code activeDeadlineSeconds}: the control plane bounds a session's life, not the kubelet.
 */
final class RuntimePods {
  static final String CONTAINER = "agent";
  static final String TOKEN_VARIABLE = "BERTH_AGENT_TOKEN";
  static final String TOKEN_KEY = "token";
  static final String ANNOTATION_PREFIX = "berth.dev/";
  private static final long USER = 1000;

  private RuntimePods() {}

  /** The Secret holding the agent's token of the runtime {@code runtimeName}. */
  static String secretName(String runtimeName) {
    return runtimeName + "-token";
  }

  static Pod pod(RuntimeSpec spec, PodTemplate template) {
    String name = spec.runtime().name();
    return new PodBuilder()
        .withMetadata(metadata(spec, template, name))
        .withNewSpec()
        .withRestartPolicy("OnFailure")
        .withAutomountServiceAccountToken(false)
        .withServiceAccountName(template.serviceAccount().orElse(null))
        // A session sees no other service's address through its environment.
        .withEnableServiceLinks(false)
        .withNewSecurityContext()
        .withRunAsNonRoot(true)
        .withRunAsUser(USER)
        .withRunAsGroup(USER)
        .withFsGroup(USER)
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .endSecurityContext()
        .withContainers(agent(spec, template))
        .addNewVolume()
        .withName("state")
        .withEmptyDir(stateVolume(template))
        .endVolume()
        .addNewVolume()
        .withName("tmp")
        .withEmptyDir(new EmptyDirVolumeSource())
        .endVolume()
        .endSpec()
        .build();
  }

  static Secret secret(RuntimeSpec spec, PodTemplate template, String token) {
    return new SecretBuilder()
        .withMetadata(metadata(spec, template, secretName(spec.runtime().name())))
        .withType("Opaque")
        .addToStringData(TOKEN_KEY, token)
        .build();
  }

  /**
   * Makes {@code pod} the owner of its token Secret, so that the garbage collector removes both.
   */
  static OwnerReference ownedBy(Pod pod) {
    return new OwnerReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Pod")
        .withName(pod.getMetadata().getName())
        .withUid(pod.getMetadata().getUid())
        .withBlockOwnerDeletion(false)
        .build();
  }

  private static ObjectMeta metadata(RuntimeSpec spec, PodTemplate template, String name) {
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(ANNOTATION_PREFIX + "installation", spec.labels().installation());
    annotations.put(ANNOTATION_PREFIX + "session", spec.labels().session().value());
    annotations.put(ANNOTATION_PREFIX + "incarnation", Long.toString(spec.runtime().incarnation()));
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(template.namespace())
        .withLabels(spec.labels().asMap())
        .withAnnotations(annotations)
        .build();
  }

  private static Container agent(RuntimeSpec spec, PodTemplate template) {
    PodTemplate.Resources resources = template.resources();
    return new ContainerBuilder()
        .withName(CONTAINER)
        .withImage(template.image())
        .withCommand(template.command())
        .withArgs(arguments(spec, template))
        .addNewPort()
        .withName(CONTAINER)
        .withContainerPort(template.agentPort())
        .withProtocol("TCP")
        .endPort()
        .addNewEnv()
        .withName(TOKEN_VARIABLE)
        .withNewValueFrom()
        .withNewSecretKeyRef()
        .withName(secretName(spec.runtime().name()))
        .withKey(TOKEN_KEY)
        .withOptional(false)
        .endSecretKeyRef()
        .endValueFrom()
        .endEnv()
        // Ready means the agent answers; its health route needs no token.
        .withNewReadinessProbe()
        .withNewHttpGet()
        .withPath("/healthz")
        .withNewPort(CONTAINER)
        .endHttpGet()
        .withPeriodSeconds(2)
        .endReadinessProbe()
        .withNewResources()
        .addToRequests("cpu", new Quantity(resources.cpuRequest()))
        .addToRequests("memory", new Quantity(resources.memoryRequest()))
        .addToLimits("cpu", new Quantity(resources.cpuLimit()))
        .addToLimits("memory", new Quantity(resources.memoryLimit()))
        .endResources()
        .withNewSecurityContext()
        .withRunAsNonRoot(true)
        .withRunAsUser(USER)
        .withAllowPrivilegeEscalation(false)
        .withReadOnlyRootFilesystem(true)
        .withPrivileged(false)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities()
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .endSecurityContext()
        .addNewVolumeMount()
        .withName("state")
        .withMountPath(PodTemplate.STATE_DIR)
        .endVolumeMount()
        .addNewVolumeMount()
        .withName("tmp")
        .withMountPath("/tmp")
        .endVolumeMount()
        .build();
  }

  /** {@code agent --session <sid> ...}: what {@code berth agent} takes. */
  static List<String> arguments(RuntimeSpec spec, PodTemplate template) {
    List<String> args = new ArrayList<>();
    args.add("agent");
    args.addAll(List.of("--session", spec.labels().session().value()));
    args.addAll(List.of("--incarnation", Long.toString(spec.runtime().incarnation())));
    args.addAll(List.of("--installation", spec.labels().installation()));
    args.addAll(List.of("--state-dir", PodTemplate.STATE_DIR));
    args.addAll(List.of("--listen", "0.0.0.0:" + template.agentPort()));
    if (spec.awaitRestore()) {
      args.add("--await-restore");
    }
    return args;
  }

  private static EmptyDirVolumeSource stateVolume(PodTemplate template) {
    EmptyDirVolumeSourceBuilder volume = new EmptyDirVolumeSourceBuilder();
    template.stateSizeLimit().ifPresent(limit -> volume.withSizeLimit(new Quantity(limit)));
    return volume.build();
  }
}
