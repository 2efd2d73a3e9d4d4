package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.session.FailureReason;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The pod states the simulated kubelet does not stage, read straight from a pod object: what a
 * kubelet reports after an agent was OOM-killed more than once, when the agent ended, when it
 * reports a reason this version does not know, and on the plain way to Running.
 */
class PodStatesTest {
  private static final Optional<String> ENDPOINT =
      Optional.of("http://10.0.0.7:8090/v1/sessions/x");

  @Test
  void aCrashLoopWhoseLastExitWasAnOomKillFailsWithOutOfMemoryNotCrashloop() {
    PodStatus status =
        running(
            new ContainerStatusBuilder()
                .withName("agent")
                .withNewState()
                .withNewWaiting()
                .withReason("CrashLoopBackOff")
                .endWaiting()
                .endState()
                .withNewLastState()
                .withNewTerminated()
                .withReason("OOMKilled")
                .withExitCode(137)
                .endTerminated()
                .endLastState());

    assertThat(PodStates.observe(pod(status), ENDPOINT))
        .isEqualTo(
            new RuntimeObservation.Failed(
                FailureReason.OUT_OF_MEMORY,
                "the agent was killed for exceeding its memory limit (exit code 137)"));
  }

  @Test
  void aPodWhoseAgentEndedIsFailedAsLost() {
    PodStatus status = new PodStatusBuilder().withPhase("Succeeded").build();

    assertThat(PodStates.observe(pod(status), ENDPOINT))
        .isInstanceOfSatisfying(
            RuntimeObservation.Failed.class,
            f -> assertThat(f.reason()).isEqualTo(FailureReason.RUNTIME_LOST));
  }

  @Test
  void aFailedPodWithAReasonThisVersionDoesNotKnowKeepsItsWords() {
    PodStatus status =
        new PodStatusBuilder()
            .withPhase("Failed")
            .withReason("NodeAffinity")
            .withMessage("Pod was rejected: node affinity")
            .build();

    assertThat(PodStates.observe(pod(status), ENDPOINT))
        .isEqualTo(
            new RuntimeObservation.Failed(
                FailureReason.RUNTIME_UNKNOWN_REASON,
                "NodeAffinity Pod was rejected: node affinity"));
  }

  @Test
  void aPodBeingDeletedIsNoLongerRunningWhateverItsStatusStillSays() {
    Pod pod =
        new PodBuilder(pod(running(ready())))
            .editMetadata()
            .withDeletionTimestamp("2026-12-03T08:00:00Z")
            .endMetadata()
            .build();

    assertThat(PodStates.observe(pod, ENDPOINT))
        .isInstanceOfSatisfying(
            RuntimeObservation.Failed.class,
            f -> assertThat(f.reason()).isEqualTo(FailureReason.RUNTIME_LOST));
  }

  @Test
  void aPodIsRunningOnlyWhenItsAgentIsReadyAndItHasAnAddress() {
    assertThat(PodStates.observe(pod(running(ready())), ENDPOINT))
        .isEqualTo(new RuntimeObservation.Running(ENDPOINT));
    assertThat(PodStates.observe(pod(running(ready())), Optional.empty()))
        .isEqualTo(
            new RuntimeObservation.Starting("pod Running, agent ready but without an address"));
    assertThat(PodStates.observe(pod(running(ready().withReady(false))), ENDPOINT))
        .isEqualTo(new RuntimeObservation.Starting("pod Running, agent not ready"));
    assertThat(PodStates.observe(pod(new PodStatus()), ENDPOINT))
        .isEqualTo(new RuntimeObservation.Starting("pod Pending, agent not ready"));
  }

  private static ContainerStatusBuilder ready() {
    return new ContainerStatusBuilder()
        .withName("agent")
        .withReady(true)
        .withNewState()
        .withNewRunning()
        .endRunning()
        .endState();
  }

  private static PodStatus running(ContainerStatusBuilder agent) {
    return new PodStatusBuilder()
        .withPhase("Running")
        .withPodIP("10.0.0.7")
        .withContainerStatuses(agent.build())
        .build();
  }

  private static Pod pod(PodStatus status) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("berth-" + "ab".repeat(16) + "-1")
        .endMetadata()
        .withStatus(status)
        .build();
  }
}
