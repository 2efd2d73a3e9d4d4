package dev.berth.kubernetes.runtime;

import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.tenant.DisconnectGrant;
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
import java.util.Optional;

/**
 * The objects of one runtime: its pod, and the Secret holding its agent's token.
 *
 * <p>An agent session's pod has a second container, {@link ProxySidecar}: its credential proxy,
 * holding the provider's token. The agent container gets the CLI's path in the image, the model and
 * the plugins as arguments, and the proxy's loopback address, never that token.
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

  /**
   * The key of the runtime's Secret holding its gateway key, when its tool calls are gated: read by
   * the proxy container alone ({@link ProxySidecar}), never by the agent container.
   */
  static final String GATEWAY_KEY = "gateway-key";

  static final String ANNOTATION_PREFIX = "berth.dev/";
  private static final long USER = 1000;

  private RuntimePods() {}

  /** The Secret holding the agent's token of the runtime {@code runtimeName}. */
  static String secretName(String runtimeName) {
    return runtimeName + "-token";
  }

  /** A shell's pod. */
  static Pod pod(RuntimeSpec spec, PodTemplate template) {
    return pod(spec, template, Optional.empty());
  }

  /**
   * {@code pod} with its agent told the disconnect policy its control lease holds it to ({@code
   * --disconnect-policy}, {@code --disconnect-grace}); without, the agent applies its own default.
   */
  static Pod withDisconnect(Pod pod, Optional<DisconnectGrant> grant) {
    if (grant.isEmpty()) {
      return pod;
    }
    for (Container container : pod.getSpec().getContainers()) {
      if (container.getName().equals(CONTAINER)) {
        List<String> args = new ArrayList<>(container.getArgs());
        args.addAll(List.of("--disconnect-policy", grant.get().policy().wireName()));
        args.addAll(List.of("--disconnect-grace", grant.get().grace().toSeconds() + "s"));
        container.setArgs(args);
      }
    }
    return pod;
  }

  /** The pod of {@code spec}: an agent session's when {@code agent} says what it runs. */
  static Pod pod(RuntimeSpec spec, PodTemplate template, Optional<PodAgent> agent) {
    String name = spec.runtime().name();
    List<Container> containers = new ArrayList<>();
    containers.add(agent(spec, template, agent));
    agent.ifPresent(a -> containers.add(ProxySidecar.container(spec, template, a)));
    PodBuilder pod =
        new PodBuilder()
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
            .withContainers(containers)
            .addNewVolume()
            .withName("state")
            .withEmptyDir(stateVolume(template))
            .endVolume()
            .addNewVolume()
            .withName("tmp")
            .withEmptyDir(new EmptyDirVolumeSource())
            .endVolume()
            .endSpec();
    if (agent.isPresent()) {
      pod.editSpec()
          .addNewVolume()
          .withName("proxy-tmp")
          .withEmptyDir(new EmptyDirVolumeSource())
          .endVolume()
          .endSpec();
    }
    return pod.build();
  }

  static Secret secret(RuntimeSpec spec, PodTemplate template, String token) {
    return secret(spec, template, token, Optional.empty());
  }

  /**
   * The runtime's Secret: the agent's token, and the session's gateway key when {@code agent} is
   * gated (its proxy container alone refers to it).
   */
  static Secret secret(
      RuntimeSpec spec, PodTemplate template, String token, Optional<PodAgent> agent) {
    SecretBuilder secret =
        new SecretBuilder()
            .withMetadata(metadata(spec, template, secretName(spec.runtime().name())))
            .withType("Opaque")
            .addToStringData(TOKEN_KEY, token);
    agent.flatMap(PodAgent::gate).ifPresent(g -> secret.addToStringData(GATEWAY_KEY, g.key()));
    return secret.build();
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

  private static Container agent(RuntimeSpec spec, PodTemplate template, Optional<PodAgent> agent) {
    PodTemplate.Resources resources = template.resources();
    return new ContainerBuilder()
        .withName(CONTAINER)
        .withImage(template.image())
        .withCommand(template.command())
        .withArgs(arguments(spec, template, agent))
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

  /** A shell's {@code agent --session <sid> ...}. */
  static List<String> arguments(RuntimeSpec spec, PodTemplate template) {
    return arguments(spec, template, Optional.empty());
  }

  /**
   * {@code agent --session <sid> ...}: what {@code berth agent} takes; an agent session's adds its
   * type, CLI, model, plugins and where its proxy sidecar answers.
   */
  static List<String> arguments(RuntimeSpec spec, PodTemplate template, Optional<PodAgent> agent) {
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
    agent.ifPresent(
        a -> {
          args.addAll(List.of("--workload", spec.workload().value()));
          args.addAll(List.of("--agent-cli", a.cli()));
          args.addAll(List.of("--model", a.model()));
          a.plugins().forEach(p -> args.addAll(List.of("--plugin", p.name() + "=" + p.path())));
          args.addAll(List.of("--proxy", ProxySidecar.URL));
          // The policy only (the key is the sidecar's): the CLI must not declare what it refuses.
          a.gate().ifPresent(g -> args.addAll(List.of("--approval", g.policy())));
        });
    return args;
  }

  private static EmptyDirVolumeSource stateVolume(PodTemplate template) {
    EmptyDirVolumeSourceBuilder volume = new EmptyDirVolumeSourceBuilder();
    template.stateSizeLimit().ifPresent(limit -> volume.withSizeLimit(new Quantity(limit)));
    return volume.build();
  }
}
