package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import dev.berth.protocol.wire.AgentEndpoints.Endpoint;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Where the data plane reaches a pod's agent, and with which token: checked against the real agent
 * process the {@link KubeletSimulator} runs for the pod, on its simulated pod address.
 */
class KubernetesRuntimeEndpointTest {
  private static final String INSTALLATION = "endpoint-installation";
  private static final SecureRandom IDS = new SecureRandom();

  @RegisterExtension static final SimulatedCluster cluster = new SimulatedCluster();
  private final HttpClient http = HttpClient.newHttpClient();
  private KubernetesRuntime runtime;
  private RuntimeSpec spec;

  @BeforeEach
  void provisionARunningPod() throws InterruptedException {
    runtime = cluster.directRuntime(INSTALLATION);
    SessionId session = SessionId.generate(IDS);
    spec =
        new RuntimeSpec(
            RuntimeRef.planned(KubernetesRuntime.KIND, session, 2),
            WorkloadType.SHELL,
            new OwnershipLabels(INSTALLATION, session, 2));
    runtime.provision(spec);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> runtime.observe(spec.runtime()), o -> o instanceof RuntimeObservation.Running);
  }

  @AfterEach
  void remove() {
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> runtime.remove(spec.runtime()), r -> r instanceof RemovalResult.Confirmed);
    } finally {
      cluster.closeRuntimes();
      http.close();
    }
  }

  @Test
  void theEndpointIsTheSessionUnderThePodsAddressAndTheAgentAcceptsItsToken() throws Exception {
    Endpoint endpoint = runtime.resolve(spec.runtime());

    assertThat(endpoint.sessionUrl())
        .matches(
            "http://127\\.\\d+\\.\\d+\\.\\d+:8090/v1/sessions/" + spec.labels().session().value());
    assertThat(endpoint.runtimeName()).isEqualTo(spec.runtime().name());
    assertThat(runtime.observe(spec.runtime()))
        .isEqualTo(new RuntimeObservation.Running(java.util.Optional.of(endpoint.sessionUrl())));
    assertThat(get(endpoint, endpoint.token())).isEqualTo(200);
    assertThat(get(endpoint, "x".repeat(43))).isEqualTo(401);
  }

  @Test
  void theTokenIsDerivedFromTheRuntimeSoARestartedControlPlaneResolvesTheSameOne()
      throws Exception {
    Endpoint before = runtime.resolve(spec.runtime());

    Endpoint after = cluster.runtime(INSTALLATION).resolve(spec.runtime());

    assertThat(after).isEqualTo(before);
    assertThat(before.token())
        .hasSizeGreaterThanOrEqualTo(32)
        .isEqualTo(SimulatedCluster.TOKENS.tokenFor(spec.runtime().name()))
        .isNotEqualTo(
            SimulatedCluster.TOKENS.tokenFor(
                RuntimeRef.nameFor(spec.labels().session(), spec.runtime().incarnation() + 1)));
  }

  @Test
  void theTokenSecretAndTheNetworkPolicyAreOwnedByThePodSoTheyGoWithIt() {
    String podUid = pod().get().getMetadata().getUid();

    assertThat(secret().get().getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(podUid));
    assertThat(policy().get().getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            owner -> {
              assertThat(owner.getKind()).isEqualTo("Pod");
              assertThat(owner.getUid()).isEqualTo(podUid);
            });
  }

  @Test
  void aConfirmedRemovalLeavesNeitherPodNorSecretNorNetworkPolicy() {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> runtime.remove(spec.runtime()), r -> r instanceof RemovalResult.Confirmed);

    assertThat(pod().get()).isNull();
    assertThat(secret().get()).isNull();
    assertThat(policy().get()).isNull();
  }

  private Resource<Pod> pod() {
    return cluster
        .client()
        .pods()
        .inNamespace(SimulatedCluster.NAMESPACE)
        .withName(spec.runtime().name());
  }

  private Resource<Secret> secret() {
    return cluster
        .client()
        .secrets()
        .inNamespace(SimulatedCluster.NAMESPACE)
        .withName(RuntimePods.secretName(spec.runtime().name()));
  }

  private Resource<NetworkPolicy> policy() {
    return cluster
        .client()
        .network()
        .v1()
        .networkPolicies()
        .inNamespace(SimulatedCluster.NAMESPACE)
        .withName(spec.runtime().name());
  }

  @Test
  void aRuntimeWithoutAPodHasNoEndpoint() {
    RuntimeRef none = RuntimeRef.planned(KubernetesRuntime.KIND, SessionId.generate(IDS), 1);

    assertThatThrownBy(() -> runtime.resolve(none))
        .isInstanceOf(AgentUnreachableException.class)
        .hasMessageContaining(none.name());
  }

  private int get(Endpoint endpoint, String token) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(endpoint.url("/status", "")))
            .header("Authorization", "Bearer " + token)
            .build();
    return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }
}
