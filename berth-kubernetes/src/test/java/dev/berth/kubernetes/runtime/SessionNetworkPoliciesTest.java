package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.NetworkAccess;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The NetworkPolicy of one runtime: its pod alone, reached by the control plane alone. */
class SessionNetworkPoliciesTest {
  private static final SessionId SESSION = new SessionId("cd".repeat(16));
  private static final RuntimeSpec SPEC =
      new RuntimeSpec(
          RuntimeRef.planned("kubernetes", SESSION, 2),
          WorkloadType.SHELL,
          new OwnershipLabels("inst-1", SESSION, 2));
  private static final NetworkPolicyTemplate TEMPLATE =
      new NetworkPolicyTemplate(
          Map.of("app.kubernetes.io/name", "berth"),
          Optional.of("berth-system"),
          List.of("169.254.169.254/32", "10.0.0.0/8"));

  private static NetworkPolicy policy(NetworkAccess access) {
    return SessionNetworkPolicies.policy(SPEC, SimulatedCluster.TEMPLATE, TEMPLATE, access);
  }

  @Test
  void thePolicySelectsThisIncarnationsPodAloneAndLetsOnlyTheControlPlaneReachItsAgentPort() {
    NetworkPolicy policy = policy(NetworkAccess.EGRESS);

    assertThat(policy.getMetadata().getName()).isEqualTo(SPEC.runtime().name());
    assertThat(policy.getMetadata().getLabels()).isEqualTo(SPEC.labels().asMap());
    assertThat(policy.getSpec().getPodSelector().getMatchLabels())
        .containsOnly(
            Map.entry("berth.dev/installation", "inst-1"),
            Map.entry("berth.dev/session", SESSION.value()),
            Map.entry("berth.dev/incarnation", "2"));
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
    assertThat(policy.getSpec().getIngress())
        .singleElement()
        .satisfies(
            rule -> {
              assertThat(rule.getFrom())
                  .singleElement()
                  .satisfies(
                      peer -> {
                        assertThat(peer.getPodSelector().getMatchLabels())
                            .containsOnly(Map.entry("app.kubernetes.io/name", "berth"));
                        assertThat(peer.getNamespaceSelector().getMatchLabels())
                            .containsOnly(Map.entry("kubernetes.io/metadata.name", "berth-system"));
                      });
              assertThat(rule.getPorts())
                  .extracting(NetworkPolicyPort::getPort)
                  .containsExactly(new IntOrString(SimulatedCluster.TEMPLATE.agentPort()));
            });
  }

  @Test
  void aSessionWithoutNetworkMayReachNothingNotEvenDns() {
    NetworkPolicy policy = policy(NetworkAccess.NONE);

    assertThat(policy.getSpec().getPolicyTypes()).contains("Egress");
    assertThat(policy.getSpec().getEgress()).isEmpty();
  }

  @Test
  void aSessionWithEgressMayReachAnythingButTheExceptedRangesAndDns() {
    NetworkPolicy policy = policy(NetworkAccess.EGRESS);

    assertThat(policy.getSpec().getEgress()).hasSize(2);
    assertThat(policy.getSpec().getEgress().getFirst().getTo())
        .singleElement()
        .satisfies(
            peer -> {
              assertThat(peer.getIpBlock().getCidr()).isEqualTo("0.0.0.0/0");
              assertThat(peer.getIpBlock().getExcept())
                  .containsExactly("169.254.169.254/32", "10.0.0.0/8");
            });
    assertThat(policy.getSpec().getEgress().get(1).getTo())
        .as("DNS goes to the cluster's DNS pods only")
        .singleElement()
        .satisfies(
            peer -> {
              assertThat(peer.getNamespaceSelector().getMatchLabels())
                  .containsExactly(
                      java.util.Map.entry("kubernetes.io/metadata.name", "kube-system"));
              assertThat(peer.getPodSelector().getMatchLabels())
                  .containsExactly(java.util.Map.entry("k8s-app", "kube-dns"));
            });
    assertThat(policy.getSpec().getEgress().get(1).getPorts())
        .extracting(NetworkPolicyPort::getProtocol, p -> p.getPort().getIntVal())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("UDP", 53),
            org.assertj.core.groups.Tuple.tuple("TCP", 53));
  }

  /** What the tests' hosts resolve to, without DNS: this machine reaches no name server. */
  private static final ProviderAddresses HOSTS =
      host ->
          switch (host) {
            case "api.anthropic.com" ->
                List.of(
                    InetAddress.getByAddress(host, new byte[] {(byte) 160, 79, 104, 10}),
                    InetAddress.getByAddress(host, new byte[] {(byte) 160, 79, 104, 11}),
                    InetAddress.getByAddress(
                        host,
                        new byte[] {
                          0x26, 0x07, 0x6b, (byte) 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
                        }));
            case "10.1.2.3" -> List.of(InetAddress.getByAddress(new byte[] {10, 1, 2, 3}));
            default -> throw new UnknownHostException(host + ": Name or service not known");
          };

  @Test
  void anAgentSessionWithoutNetworkReachesItsProvidersResolvedAddressesOnItsPortAndDnsAlone() {
    NetworkPolicy byName = agentPolicy("https://api.anthropic.com", List.of());

    assertThat(byName.getSpec().getEgress()).hasSize(2);
    var provider = byName.getSpec().getEgress().getFirst();
    assertThat(provider.getTo())
        .extracting(peer -> peer.getIpBlock().getCidr())
        .containsExactly("160.79.104.10/32", "160.79.104.11/32", "2607:6bc0:0:0:0:0:0:1/128");
    assertThat(provider.getTo())
        .allSatisfy(
            peer -> {
              assertThat(peer.getIpBlock().getExcept()).isEmpty();
              assertThat(peer.getPodSelector()).isNull();
              assertThat(peer.getNamespaceSelector()).isNull();
            });
    assertThat(provider.getPorts())
        .extracting(NetworkPolicyPort::getProtocol, p -> p.getPort().getIntVal())
        .containsExactly(org.assertj.core.groups.Tuple.tuple("TCP", 443));
    assertThat(byName.getSpec().getEgress().get(1).getTo().getFirst().getPodSelector()).isNotNull();

    NetworkPolicy byAddress = agentPolicy("https://10.1.2.3:8443/v1", List.of());
    var pinned = byAddress.getSpec().getEgress().getFirst();
    assertThat(pinned.getTo())
        .extracting(peer -> peer.getIpBlock().getCidr())
        .containsExactly("10.1.2.3/32");
    assertThat(pinned.getPorts())
        .extracting(NetworkPolicyPort::getPort)
        .containsExactly(new IntOrString(8443));
  }

  @Test
  void theOperatorsEgressCidrsForTheProviderWinOverWhatItsHostResolvesTo() {
    NetworkPolicy policy =
        agentPolicy("https://api.anthropic.com", List.of("160.79.104.0/23", "2607:6bc0::/48"));

    assertThat(policy.getSpec().getEgress().getFirst().getTo())
        .extracting(peer -> peer.getIpBlock().getCidr())
        .containsExactly("160.79.104.0/23", "2607:6bc0::/48");

    NetworkPolicy unresolvable =
        agentPolicy("https://llm.internal.example", List.of("192.0.2.0/24"));
    assertThat(unresolvable.getSpec().getEgress().getFirst().getTo())
        .extracting(peer -> peer.getIpBlock().getCidr())
        .containsExactly("192.0.2.0/24");
  }

  @Test
  void aProviderHostThatDoesNotResolveAndHasNoCidrsIsRefusedNamingTheHostAndTheSetting() {
    assertThatThrownBy(() -> agentPolicy("https://llm.internal.example", List.of()))
        .isInstanceOf(SessionNetworkPolicies.UnresolvedProvider.class)
        .hasMessageContaining("llm.internal.example")
        .hasMessageContaining("does not resolve")
        .hasMessageContaining("egressCidrs")
        .hasMessageContaining("BERTH_PROVIDER_CLAUDE_CODE_EGRESS_CIDRS");
    assertThatThrownBy(() -> agentPolicy("https://api.anthropic.com", List.of(), host -> List.of()))
        .isInstanceOf(SessionNetworkPolicies.UnresolvedProvider.class)
        .hasMessageContaining("resolves to no address");
  }

  @Test
  void aSessionWithoutNetworkNeverGetsEveryAddressWhateverItsProvider() {
    for (String url :
        List.of(
            "https://api.anthropic.com",
            "https://10.1.2.3:8443/v1",
            "https://api.anthropic.com:443")) {
      NetworkPolicy policy = agentPolicy(url, List.of());
      assertThat(policy.getSpec().getEgress())
          .flatExtracting(rule -> rule.getTo())
          .filteredOn(peer -> peer.getIpBlock() != null)
          .isNotEmpty()
          .allSatisfy(
              peer ->
                  assertThat(peer.getIpBlock().getCidr())
                      .as("an address of the provider alone")
                      .matches(".*/(32|128)"));
    }
  }

  @Test
  void anOperatorsEgressCidrThatIsNoCidrIsRefused() {
    assertThatThrownBy(() -> agentPolicy("https://api.anthropic.com", List.of("api.anthropic.com")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"api.anthropic.com\"");
    assertThatThrownBy(() -> agentPolicy("https://api.anthropic.com", List.of("10.0.0.0/33")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static NetworkPolicy agentPolicy(String providerUrl, List<String> cidrs) {
    return agentPolicy(providerUrl, cidrs, HOSTS);
  }

  private static NetworkPolicy agentPolicy(
      String providerUrl, List<String> cidrs, ProviderAddresses hosts) {
    PodAgent agent =
        new PodAgent(
            "/opt/cli",
            "platform-default",
            List.of(),
            new PodAgent.Provider(
                providerUrl,
                "anthropic",
                Optional.empty(),
                Optional.empty(),
                new PodAgent.SecretRef("berth-provider-claude-code", "token"),
                cidrs));
    RuntimeSpec spec =
        new RuntimeSpec(
            RuntimeRef.planned("kubernetes", SESSION, 2),
            new WorkloadType("claude-code"),
            new OwnershipLabels("inst-1", SESSION, 2));
    return SessionNetworkPolicies.policy(
        spec, SimulatedCluster.TEMPLATE, TEMPLATE, NetworkAccess.NONE, Optional.of(agent), hosts);
  }
}
