package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.AgentModel;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.NetworkAccess;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A gated agent session's pod: its proxy sidecar gets the policy, the gateway and the timeout as
 * values and the session's gateway key from the runtime's own Secret, which the agent container has
 * no way to; its NetworkPolicy lets the pod reach the control plane's port.
 */
class GatedAgentPodsTest {
  private static final SessionId SESSION = new SessionId("ef".repeat(16));
  private static final RuntimeSpec SPEC =
      new RuntimeSpec(
          RuntimeRef.planned("kubernetes", SESSION, 3),
          new WorkloadType("claude-code"),
          Optional.of(new AgentModel("claude-sonnet-4-5")),
          List.of(),
          new OwnershipLabels("inst-1", SESSION, 3),
          false);
  private static final String KEY = "gateway-key-of-this-runtime-0123456789abcdef";
  private static final PodAgent.Gate GATE =
      new PodAgent.Gate("all", "http://berth.berth-system.svc:8080/gateway", KEY, 600, 8080);
  private static final PodAgent UNGATED =
      new PodAgent(
          "/opt/berth/agent-clis/node_modules/.bin/claude",
          "claude-sonnet-4-5",
          List.of(),
          new PodAgent.Provider(
              "https://api.anthropic.com",
              "anthropic",
              Optional.empty(),
              Optional.empty(),
              PodAgent.SecretRef.parse("berth-provider-claude-code/token")));
  private static final PodAgent GATED = UNGATED.withGate(Optional.of(GATE));
  private static final NetworkPolicyTemplate POLICIES =
      new NetworkPolicyTemplate(
          Map.of("app.kubernetes.io/name", "berth"),
          Optional.of("berth-system"),
          List.of("169.254.169.254/32", "10.0.0.0/8"));

  private final Pod pod = RuntimePods.pod(SPEC, SimulatedCluster.TEMPLATE, Optional.of(GATED));

  /** The provider's host stands for one documentation address: no DNS in a test. */
  private static final ProviderAddresses ADDRESSES =
      host -> java.util.List.of(java.net.InetAddress.getByName("203.0.113.7"));

  @Test
  void theProxyContainerGetsTheGateAndTheGatewayKeyFromTheRuntimesOwnSecret() {
    Container proxy = container("proxy");
    assertThat(proxy.getEnv())
        .filteredOn(e -> e.getValue() != null)
        .extracting(EnvVar::getName, EnvVar::getValue)
        .contains(
            tuple("BERTH_PROXY_APPROVAL_POLICY", "all"),
            tuple("BERTH_PROXY_GATEWAY_URL", "http://berth.berth-system.svc:8080/gateway"),
            tuple("BERTH_PROXY_APPROVAL_TIMEOUT_SECONDS", "600"));
    EnvVar key =
        proxy.getEnv().stream()
            .filter(e -> e.getName().equals("BERTH_PROXY_GATEWAY_KEY"))
            .findFirst()
            .orElseThrow();
    assertThat(key.getValue()).isNull();
    assertThat(key.getValueFrom().getSecretKeyRef().getName())
        .isEqualTo(RuntimePods.secretName(SPEC.runtime().name()));
    assertThat(key.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("gateway-key");
    assertThat(key.getValueFrom().getSecretKeyRef().getOptional()).isFalse();

    Secret secret =
        RuntimePods.secret(SPEC, SimulatedCluster.TEMPLATE, "agent-token", Optional.of(GATED));
    assertThat(secret.getMetadata().getName())
        .isEqualTo(RuntimePods.secretName(SPEC.runtime().name()));
    assertThat(secret.getStringData())
        .containsOnly(Map.entry("token", "agent-token"), Map.entry("gateway-key", KEY));
  }

  @Test
  void theAgentContainerAndThePodSpecGiveTheAgentNoWayToTheGatewayKey() {
    Container agent = container("agent");
    assertThat(agent.getEnv()).extracting(EnvVar::getName).containsExactly("BERTH_AGENT_TOKEN");
    assertThat(agent.getEnv().getFirst().getValueFrom().getSecretKeyRef().getKey())
        .isEqualTo("token");
    assertThat(agent.getEnvFrom()).isEmpty();
    assertThat(agent.getArgs()).noneMatch(a -> a.contains(KEY) || a.contains("gateway"));
    // No Secret is mounted as a volume: the only ways to a Secret's keys are the secretKeyRefs.
    assertThat(pod.getSpec().getVolumes()).allSatisfy(v -> assertThat(v.getSecret()).isNull());
    assertThat(pod.getSpec().getVolumes())
        .extracting(Volume::getName)
        .containsExactlyInAnyOrder("state", "tmp", "proxy-tmp");
    assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
    // The key itself is no value anywhere in the pod's spec, which anyone who reads pods sees.
    assertThat(Serialization.asJson(pod)).doesNotContain(KEY);
    assertThat(pod.getSpec().getContainers())
        .filteredOn(c -> !c.getName().equals("proxy"))
        .flatExtracting(Container::getEnv)
        .noneMatch(
            e ->
                e.getValueFrom() != null
                    && e.getValueFrom().getSecretKeyRef() != null
                    && e.getValueFrom().getSecretKeyRef().getKey().equals("gateway-key"));
  }

  @Test
  void anUngatedSessionsPodAndSecretCarryNoGate() {
    Pod ungated = RuntimePods.pod(SPEC, SimulatedCluster.TEMPLATE, Optional.of(UNGATED));
    assertThat(ungated.getSpec().getContainers())
        .flatExtracting(Container::getEnv)
        .extracting(EnvVar::getName)
        .noneMatch(n -> n.contains("APPROVAL") || n.contains("GATEWAY"));
    assertThat(
            RuntimePods.secret(SPEC, SimulatedCluster.TEMPLATE, "agent-token", Optional.of(UNGATED))
                .getStringData())
        .containsOnlyKeys("token");
    assertThat(GATE.toString()).doesNotContain(KEY);
  }

  @Test
  void aGatedSessionWithoutNetworkReachesTheControlPlanesPortBesidesItsProviderAndDns() {
    NetworkPolicy policy =
        SessionNetworkPolicies.policy(
            SPEC,
            SimulatedCluster.TEMPLATE,
            POLICIES,
            NetworkAccess.NONE,
            Optional.of(GATED),
            ADDRESSES);

    assertThat(policy.getSpec().getEgress()).hasSize(3);
    assertGatewayRule(policy.getSpec().getEgress().getLast());
  }

  @Test
  void aGatedSessionWithEgressReachesTheControlPlanesPortThoughItsPrivateRangesAreExcepted() {
    NetworkPolicy gated =
        SessionNetworkPolicies.policy(
            SPEC,
            SimulatedCluster.TEMPLATE,
            POLICIES,
            NetworkAccess.EGRESS,
            Optional.of(GATED),
            ADDRESSES);
    NetworkPolicy ungated =
        SessionNetworkPolicies.policy(
            SPEC,
            SimulatedCluster.TEMPLATE,
            POLICIES,
            NetworkAccess.EGRESS,
            Optional.of(UNGATED),
            ADDRESSES);

    assertThat(ungated.getSpec().getEgress()).hasSize(2);
    assertThat(gated.getSpec().getEgress()).hasSize(3);
    assertGatewayRule(gated.getSpec().getEgress().getLast());
  }

  private static void assertGatewayRule(NetworkPolicyEgressRule rule) {
    assertThat(rule.getTo())
        .singleElement()
        .satisfies(
            peer -> {
              assertThat(peer.getIpBlock()).isNull();
              assertThat(peer.getPodSelector().getMatchLabels())
                  .containsOnly(Map.entry("app.kubernetes.io/name", "berth"));
              assertThat(peer.getNamespaceSelector().getMatchLabels())
                  .containsOnly(Map.entry("kubernetes.io/metadata.name", "berth-system"));
            });
    assertThat(rule.getPorts())
        .extracting(NetworkPolicyPort::getProtocol, NetworkPolicyPort::getPort)
        .containsExactly(tuple("TCP", new IntOrString(8080)));
  }

  private Container container(String name) {
    return pod.getSpec().getContainers().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
