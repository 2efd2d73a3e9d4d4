package dev.berth.kubernetes.runtime;

import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.session.FailureReason;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a pod's status says of its runtime. Only what the kubelet and the scheduler report counts:
 * the phase, the pod's reason, the PodScheduled condition and the agent container's state.
 *
 * <ul>
 *   <li>Running: phase Running, every container ready (the agent; an agent session's credential
 *       proxy sidecar too, whose readiness says it answers for this session, and the agent's says
 *       it saw that), and an address to reach it at.
 *   <li>Starting, stalled by SCHEDULING (PodScheduled False, reason Unschedulable) or IMAGE_PULL
 *       ({@code ErrImagePull}, {@code ImagePullBackOff}): those may resolve on their own (a node
 *       frees up, a registry comes back), so the start's deadline decides.
 *   <li>Failed: {@code InvalidImageName} (IMAGE_INVALID), {@code CreateContainerConfigError}
 *       (RUNTIME_CONFIG_INVALID; CREDENTIAL_REFERENCE when it names the provider Secret of an agent
 *       session's proxy: the operator has not made it, or not with that key), {@code OOMKilled}
 *       (OUT_OF_MEMORY), {@code CrashLoopBackOff} (AGENT_CRASHLOOP, or OUT_OF_MEMORY when its last
 *       exit was an OOM kill), pod reason {@code Evicted} (EVICTED); phase Succeeded or Failed
 *       otherwise (RUNTIME_LOST, or RUNTIME_UNKNOWN_REASON with the pod's own words when it gives a
 *       reason this does not know).
 *   <li>Unknown: phase Unknown, the node stopped reporting: the pod may run on.
 * </ul>
 *
 * A pod being deleted is Failed (RUNTIME_LOST) whatever its status still says: its agent is being
 * stopped.
 */
final class PodStates {

  private PodStates() {}

  static RuntimeObservation observe(Pod pod, Optional<String> endpoint) {
    Optional<String> providerSecret = providerSecret(pod);
    PodStatus status = Objects.requireNonNullElseGet(pod.getStatus(), PodStatus::new);
    String phase = Objects.requireNonNullElse(status.getPhase(), "Pending");
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      return new RuntimeObservation.Failed(
          FailureReason.RUNTIME_LOST,
          "the pod is being deleted since " + pod.getMetadata().getDeletionTimestamp());
    }
    if ("Evicted".equals(status.getReason())) {
      return new RuntimeObservation.Failed(FailureReason.EVICTED, words(status));
    }
    return switch (phase) {
      case "Unknown" ->
          new RuntimeObservation.Unknown("the pod's node stopped reporting: " + words(status));
      case "Succeeded" ->
          new RuntimeObservation.Failed(
              FailureReason.RUNTIME_LOST, "the agent exited: " + words(status));
      case "Failed" -> ended(status);
      default -> live(status, phase, endpoint, providerSecret);
    };
  }

  /** The Secret an agent session's proxy takes the provider's token from; none for a shell. */
  private static Optional<String> providerSecret(Pod pod) {
    if (pod.getSpec() == null) {
      return Optional.empty();
    }
    return pod.getSpec().getContainers().stream()
        .filter(c -> ProxySidecar.CONTAINER.equals(c.getName()))
        .flatMap(c -> c.getEnv().stream())
        .filter(e -> ProxySidecar.TOKEN_VARIABLE.equals(e.getName()))
        .filter(e -> e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null)
        .map(e -> e.getValueFrom().getSecretKeyRef().getName())
        .findFirst();
  }

  /** Phase Pending or Running: the containers' states tell how far it got. */
  private static RuntimeObservation live(
      PodStatus status, String phase, Optional<String> endpoint, Optional<String> providerSecret) {
    Optional<ContainerStatus> agent = agent(status);
    Optional<ContainerStatus> proxy = container(status, ProxySidecar.CONTAINER);
    for (ContainerStatus container :
        List.of(agent, proxy).stream().flatMap(Optional::stream).toList()) {
      ContainerStateWaiting waits =
          container.getState() == null ? null : container.getState().getWaiting();
      if (waits != null && waits.getReason() != null) {
        Optional<RuntimeObservation> stuck = waiting(waits, container, providerSecret);
        if (stuck.isPresent()) {
          return stuck.get();
        }
      }
    }
    ContainerState state = agent.map(ContainerStatus::getState).orElse(null);
    ContainerStateTerminated terminated = state == null ? null : state.getTerminated();
    if (terminated != null && "OOMKilled".equals(terminated.getReason())) {
      return oom(terminated);
    }
    if (unschedulable(status)) {
      return new RuntimeObservation.Starting(
          "no node can take the pod: " + scheduledMessage(status),
          Optional.of(FailureReason.SCHEDULING));
    }
    boolean ready = agent.map(c -> Boolean.TRUE.equals(c.getReady())).orElse(false);
    boolean proxyReady =
        providerSecret.isEmpty() || proxy.map(c -> Boolean.TRUE.equals(c.getReady())).orElse(false);
    if ("Running".equals(phase) && ready && proxyReady && endpoint.isPresent()) {
      return new RuntimeObservation.Running(endpoint);
    }
    return new RuntimeObservation.Starting(
        "pod "
            + phase
            + ", agent "
            + (ready ? "ready" : "not ready")
            + (providerSecret.isEmpty() ? "" : ", proxy " + (proxyReady ? "ready" : "not ready"))
            + (ready && proxyReady ? " but without an address" : ""));
  }

  private static Optional<RuntimeObservation> waiting(
      ContainerStateWaiting waiting, ContainerStatus agent, Optional<String> providerSecret) {
    String reason = waiting.getReason();
    String message = Objects.requireNonNullElse(waiting.getMessage(), "");
    String detail =
        (RuntimePods.CONTAINER.equals(agent.getName()) ? "" : "container " + agent.getName() + ": ")
            + reason
            + ": "
            + message;
    return Optional.ofNullable(
        switch (reason) {
          case "ErrImagePull", "ImagePullBackOff" ->
              new RuntimeObservation.Starting(detail, Optional.of(FailureReason.IMAGE_PULL));
          case "InvalidImageName" ->
              new RuntimeObservation.Failed(FailureReason.IMAGE_INVALID, detail);
          case "CreateContainerConfigError" ->
              new RuntimeObservation.Failed(
                  providerSecret.filter(name -> message.contains("\"" + name + "\"")).isPresent()
                          || providerSecret.filter(name -> message.contains("/" + name)).isPresent()
                      ? FailureReason.CREDENTIAL_REFERENCE
                      : FailureReason.RUNTIME_CONFIG_INVALID,
                  detail);
          case "CrashLoopBackOff" -> crashLoop(detail, agent);
          default -> null;
        });
  }

  private static RuntimeObservation crashLoop(String detail, ContainerStatus agent) {
    ContainerStateTerminated last =
        agent.getLastState() == null ? null : agent.getLastState().getTerminated();
    if (last != null && "OOMKilled".equals(last.getReason())) {
      return oom(last);
    }
    return new RuntimeObservation.Failed(FailureReason.AGENT_CRASHLOOP, detail);
  }

  private static RuntimeObservation oom(ContainerStateTerminated terminated) {
    return new RuntimeObservation.Failed(
        FailureReason.OUT_OF_MEMORY,
        "the agent was killed for exceeding its memory limit (exit code "
            + terminated.getExitCode()
            + ")");
  }

  /** Phase Failed: every container ended and none will restart. */
  private static RuntimeObservation ended(PodStatus status) {
    Optional<ContainerStateTerminated> terminated =
        agent(status)
            .map(ContainerStatus::getState)
            .map(ContainerState::getTerminated)
            .filter(t -> "OOMKilled".equals(t.getReason()));
    if (terminated.isPresent()) {
      return oom(terminated.get());
    }
    if (status.getReason() != null) {
      return new RuntimeObservation.Failed(FailureReason.RUNTIME_UNKNOWN_REASON, words(status));
    }
    return new RuntimeObservation.Failed(
        FailureReason.RUNTIME_LOST, "the pod failed: " + words(status));
  }

  private static boolean unschedulable(PodStatus status) {
    return scheduled(status)
        .filter(c -> "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason()))
        .isPresent();
  }

  private static String scheduledMessage(PodStatus status) {
    return scheduled(status).map(PodCondition::getMessage).orElse("the scheduler gave no message");
  }

  private static Optional<PodCondition> scheduled(PodStatus status) {
    return conditions(status).stream().filter(c -> "PodScheduled".equals(c.getType())).findFirst();
  }

  private static List<PodCondition> conditions(PodStatus status) {
    return Objects.requireNonNullElse(status.getConditions(), List.of());
  }

  private static Optional<ContainerStatus> agent(PodStatus status) {
    return container(status, RuntimePods.CONTAINER);
  }

  private static Optional<ContainerStatus> container(PodStatus status, String name) {
    return Objects.requireNonNullElse(status.getContainerStatuses(), List.<ContainerStatus>of())
        .stream()
        .filter(c -> name.equals(c.getName()))
        .findFirst();
  }

  private static String words(PodStatus status) {
    return orNone(status.getReason()) + " " + orNone(status.getMessage());
  }

  private static String orNone(@Nullable String word) {
    return word == null ? "-" : word;
  }
}
