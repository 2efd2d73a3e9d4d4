package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.NetworkAccess;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An agent session's pod on the simulated cluster: its agent and proxy run as processes of their
 * own, the pod is Running only once the agent saw its proxy answer for the session, only the proxy
 * process holds the provider's token, and a missing provider Secret fails the runtime with
 * CREDENTIAL_REFERENCE (checked before the pod is made, and read from a pod stuck on it).
 */
class AgentPodRuntimeTest {
  private static final String INSTALLATION = "agent-pods";
  private static final String TOKEN = "sk-pod-provider-token-31415926535";
  private static final SecureRandom IDS = new SecureRandom();
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  @RegisterExtension static final SimulatedCluster cluster = new SimulatedCluster();

  private final String secretName = "berth-provider-" + Long.toHexString(IDS.nextLong());
  private final PodAgent agent =
      new PodAgent(
          "/usr/bin/true",
          "platform-default",
          List.of(),
          new PodAgent.Provider(
              "https://127.0.0.1:9",
              "anthropic",
              Optional.empty(),
              Optional.empty(),
              new PodAgent.SecretRef(secretName, "token")));

  @AfterEach
  void closeRuntimes() {
    cluster.closeRuntimes();
  }

  @Test
  void theAgentAndItsProxyRunAsTwoContainersAndOnlyTheProxyHoldsTheProviderToken()
      throws Exception {
    makeSecret();
    KubernetesRuntime runtime = runtime();
    RuntimeSpec spec = agentSpec();

    runtime.provision(spec);
    await()
        .atMost(PATIENCE)
        .until(() -> runtime.observe(spec.runtime()) instanceof RuntimeObservation.Running);

    String pod = spec.runtime().name();
    ProcessHandle agentProcess = cluster.kubelet().agentProcess(pod).orElseThrow();
    String environ =
        Files.readString(
            Path.of("/proc/" + agentProcess.pid() + "/environ"), StandardCharsets.ISO_8859_1);
    String cmdline =
        Files.readString(
            Path.of("/proc/" + agentProcess.pid() + "/cmdline"), StandardCharsets.ISO_8859_1);
    assertThat(environ).contains("BERTH_AGENT_TOKEN=").doesNotContain(TOKEN);
    assertThat(cmdline).contains("--proxy").doesNotContain(TOKEN);
    ProcessHandle proxyProcess = cluster.kubelet().proxyProcess(pod).orElseThrow();
    assertThat(
            Files.readString(
                Path.of("/proc/" + proxyProcess.pid() + "/environ"), StandardCharsets.ISO_8859_1))
        .as("the proxy container's environment")
        .contains("BERTH_PROXY_TOKEN=" + TOKEN)
        .doesNotContain("BERTH_AGENT_TOKEN");

    assertThat(runtime.remove(spec.runtime())).isNotInstanceOf(RemovalResult.Unconfirmed.class);
    await()
        .atMost(PATIENCE)
        .until(() -> runtime.remove(spec.runtime()) instanceof RemovalResult.Confirmed);
  }

  @Test
  void aMissingProviderSecretFailsTheRuntimeWithCredentialReferenceAndNoPodIsMade()
      throws Exception {
    KubernetesRuntime runtime = runtime();
    RuntimeSpec spec = agentSpec();

    runtime.provision(spec);

    assertThat(runtime.observe(spec.runtime()))
        .isInstanceOfSatisfying(
            RuntimeObservation.Failed.class,
            f -> {
              assertThat(f.reason()).isEqualTo(FailureReason.CREDENTIAL_REFERENCE);
              assertThat(f.detail()).contains(secretName, "does not exist", "kubectl");
            });
    assertThat(
            cluster
                .client()
                .pods()
                .inNamespace(SimulatedCluster.NAMESPACE)
                .withName(spec.runtime().name())
                .get())
        .isNull();
    assertThat(runtime.remove(spec.runtime())).isInstanceOf(RemovalResult.Confirmed.class);
    assertThat(runtime.observe(spec.runtime())).isInstanceOf(RuntimeObservation.Gone.class);
  }

  @Test
  void aProviderHostThatResolvesToNothingFailsTheRuntimeWithConfigInvalidAndNothingIsMade()
      throws Exception {
    makeSecret();
    PodAgent unresolvable =
        new PodAgent(
            "/usr/bin/true",
            "platform-default",
            List.of(),
            new PodAgent.Provider(
                "https://llm.internal.example",
                "anthropic",
                Optional.empty(),
                Optional.empty(),
                new PodAgent.SecretRef(secretName, "token")));
    KubernetesRuntime runtime =
        start(
            confinedTo(unresolvable)
                .withProviderAddresses(
                    host -> {
                      throw new UnknownHostException(host);
                    }));
    RuntimeSpec spec = agentSpec();

    runtime.provision(spec);

    assertThat(runtime.observe(spec.runtime()))
        .isInstanceOfSatisfying(
            RuntimeObservation.Failed.class,
            f -> {
              assertThat(f.reason()).isEqualTo(FailureReason.RUNTIME_CONFIG_INVALID);
              assertThat(f.detail())
                  .contains("llm.internal.example", "BERTH_PROVIDER_CLAUDE_CODE_EGRESS_CIDRS");
            });
    var namespace = cluster.client().pods().inNamespace(SimulatedCluster.NAMESPACE);
    assertThat(namespace.withName(spec.runtime().name()).get()).isNull();
    assertThat(
            cluster
                .client()
                .network()
                .networkPolicies()
                .inNamespace(SimulatedCluster.NAMESPACE)
                .withName(spec.runtime().name())
                .get())
        .isNull();
    assertThat(runtime.remove(spec.runtime())).isInstanceOf(RemovalResult.Confirmed.class);
  }

  @Test
  void aSessionWithoutNetworksPolicyLetsItOutToItsProvidersResolvedAddressesAlone()
      throws Exception {
    makeSecret();
    PodAgent named =
        new PodAgent(
            "/usr/bin/true",
            "platform-default",
            List.of(),
            new PodAgent.Provider(
                "https://api.anthropic.com",
                "anthropic",
                Optional.empty(),
                Optional.empty(),
                new PodAgent.SecretRef(secretName, "token")));
    KubernetesRuntime runtime =
        start(
            confinedTo(named)
                .withProviderAddresses(
                    host ->
                        List.of(
                            InetAddress.getByAddress(host, new byte[] {(byte) 160, 79, 104, 10}))));
    RuntimeSpec spec = agentSpec();

    runtime.provision(spec);

    var policy =
        cluster
            .client()
            .network()
            .networkPolicies()
            .inNamespace(SimulatedCluster.NAMESPACE)
            .withName(spec.runtime().name())
            .get();
    assertThat(policy.getSpec().getEgress().getFirst().getTo())
        .extracting(peer -> peer.getIpBlock().getCidr())
        .containsExactly("160.79.104.10/32");
    await()
        .atMost(PATIENCE)
        .until(() -> runtime.remove(spec.runtime()) instanceof RemovalResult.Confirmed);
  }

  private static KubernetesRuntimeSettings confinedTo(PodAgent agent) {
    return SimulatedCluster.settings(INSTALLATION)
        .withNetworkPolicy(SimulatedCluster.POLICY, session -> NetworkAccess.NONE)
        .withAgents(s -> Optional.of(agent));
  }

  private KubernetesRuntime start(KubernetesRuntimeSettings settings) throws InterruptedException {
    KubernetesRuntime runtime = KubernetesRuntime.start(cluster.client(), settings);
    assertThat(runtime.awaitSynced(Duration.ofSeconds(10))).isTrue();
    cluster.track(runtime);
    return runtime;
  }

  @Test
  void
      aPodWhoseProviderSecretWentAwayIsStuckInCreateContainerConfigErrorWhichIsACredentialReference()
          throws Exception {
    KubernetesRuntime runtime = runtime();
    RuntimeSpec spec = agentSpec();
    // As if the Secret was deleted between the runtime's check and the kubelet's start.
    cluster
        .client()
        .pods()
        .inNamespace(SimulatedCluster.NAMESPACE)
        .resource(RuntimePods.pod(spec, SimulatedCluster.TEMPLATE, Optional.of(agent)))
        .create();

    await()
        .atMost(PATIENCE)
        .until(() -> runtime.observe(spec.runtime()) instanceof RuntimeObservation.Failed);
    assertThat(runtime.observe(spec.runtime()))
        .isInstanceOfSatisfying(
            RuntimeObservation.Failed.class,
            f -> {
              assertThat(f.reason()).isEqualTo(FailureReason.CREDENTIAL_REFERENCE);
              assertThat(f.detail()).contains("container proxy", secretName);
            });
    await()
        .atMost(PATIENCE)
        .until(() -> runtime.remove(spec.runtime()) instanceof RemovalResult.Confirmed);
  }

  private KubernetesRuntime runtime() throws InterruptedException {
    KubernetesRuntime runtime =
        KubernetesRuntime.start(
            cluster.client(),
            SimulatedCluster.settings(INSTALLATION).withAgents(s -> Optional.of(agent)));
    assertThat(runtime.awaitSynced(Duration.ofSeconds(10))).isTrue();
    cluster.track(runtime);
    return runtime;
  }

  private void makeSecret() {
    cluster
        .client()
        .secrets()
        .inNamespace(SimulatedCluster.NAMESPACE)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(secretName)
                .endMetadata()
                .addToStringData("token", TOKEN)
                .build())
        .create();
  }

  private static RuntimeSpec agentSpec() {
    SessionId session = SessionId.generate(IDS);
    return new RuntimeSpec(
        RuntimeRef.planned(KubernetesRuntime.KIND, session, 1),
        new WorkloadType("claude-code"),
        new OwnershipLabels(INSTALLATION, session, 1));
  }
}
