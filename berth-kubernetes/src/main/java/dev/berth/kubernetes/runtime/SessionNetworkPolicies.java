package dev.berth.kubernetes.runtime;

import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.tenant.NetworkAccess;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The NetworkPolicy of one runtime, named after it and selecting its pod alone (by session,
 * incarnation and installation). It is created before the pod, so that no session ever runs
 * unconfined, and owned by the pod once that exists, so that it goes with the pod.
 *
 * <p>An agent session's pod must reach its provider, for its proxy sidecar, whatever the session's
 * own network: a session without network gets egress to the provider's port (to its address when
 * the provider URL names one, else to anything outside the excepted ranges on that port) and DNS. A
 * NetworkPolicy selects pods, not containers, and the containers of a pod share its network: the
 * agent container's CLI could open that connection too. It holds no token to use there (the proxy
 * container alone has it), which is what keeps the provider's account the proxy's.
 *
 * <p>A session whose tool calls are gated ({@link PodAgent.Gate}) must reach the control plane's
 * gateway, whatever its own network: its pod gets egress to the control plane's pods on their port.
 * That again is the pod's, not the proxy container's: the agent container's CLI can reach the
 * control plane's whole API on that port too. Every session, admin and gateway route there still
 * needs a token or a gateway key, which the CLI does not hold (the gateway's key is the proxy
 * container's alone, and the agent's token is for the control plane's calls to the agent, not the
 * other way).
 */
final class SessionNetworkPolicies {
  /** The label every namespace carries with its own name (Kubernetes 1.21 and later). */
  static final String NAMESPACE_NAME = "kubernetes.io/metadata.name";

  /** Where the cluster's DNS runs: CoreDNS or kube-dns, labelled k8s-app=kube-dns there. */
  static final String DNS_NAMESPACE = "kube-system";

  private SessionNetworkPolicies() {}

  static NetworkPolicy policy(
      RuntimeSpec spec, PodTemplate pod, NetworkPolicyTemplate template, NetworkAccess access) {
    return policy(spec, pod, template, access, Optional.empty());
  }

  static NetworkPolicy policy(
      RuntimeSpec spec,
      PodTemplate pod,
      NetworkPolicyTemplate template,
      NetworkAccess access,
      Optional<PodAgent> agent) {
    Map<String, String> labels = spec.labels().asMap();
    LabelSelector self =
        new LabelSelectorBuilder()
            .addToMatchLabels(OwnershipLabels.INSTALLATION, spec.labels().installation())
            .addToMatchLabels(OwnershipLabels.SESSION, spec.labels().session().value())
            .addToMatchLabels(
                OwnershipLabels.INCARNATION, Long.toString(spec.runtime().incarnation()))
            .build();
    return new NetworkPolicyBuilder()
        .withNewMetadata()
        .withName(spec.runtime().name())
        .withNamespace(pod.namespace())
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withPodSelector(self)
        .withPolicyTypes("Ingress", "Egress")
        .addNewIngress()
        .withFrom(controlPlane(template))
        .addNewPort()
        .withProtocol("TCP")
        .withPort(new IntOrString(pod.agentPort()))
        .endPort()
        .endIngress()
        .withEgress(egress(template, access, agent))
        .endSpec()
        .build();
  }

  private static NetworkPolicyPeer controlPlane(NetworkPolicyTemplate template) {
    NetworkPolicyPeerBuilder peer =
        new NetworkPolicyPeerBuilder()
            .withPodSelector(
                new LabelSelectorBuilder().withMatchLabels(template.controlPlanePods()).build());
    template
        .controlPlaneNamespace()
        .ifPresent(
            ns ->
                peer.withNamespaceSelector(
                    new LabelSelectorBuilder().addToMatchLabels(NAMESPACE_NAME, ns).build()));
    return peer.build();
  }

  /**
   * No rule at all denies every egress, DNS included: a session without network resolves nothing.
   */
  private static List<NetworkPolicyEgressRule> egress(
      NetworkPolicyTemplate template, NetworkAccess access, Optional<PodAgent> agent) {
    List<NetworkPolicyEgressRule> rules =
        new java.util.ArrayList<>(
            switch (access) {
              case NONE -> agent.map(a -> List.of(provider(template, a), dns())).orElse(List.of());
              case EGRESS ->
                  List.of(
                      new NetworkPolicyEgressRuleBuilder()
                          .addNewTo()
                          .withNewIpBlock()
                          .withCidr("0.0.0.0/0")
                          .withExcept(template.egressExcept())
                          .endIpBlock()
                          .endTo()
                          .build(),
                      dns());
            });
    agent.flatMap(PodAgent::gate).ifPresent(gate -> rules.add(gateway(template, gate)));
    return List.copyOf(rules);
  }

  /**
   * The control plane's pods on their port, where the gated session's proxy asks for approvals (a
   * session with egress is not given the private ranges the control plane lives in).
   */
  private static NetworkPolicyEgressRule gateway(
      NetworkPolicyTemplate template, PodAgent.Gate gate) {
    return new NetworkPolicyEgressRuleBuilder()
        .withTo(controlPlane(template))
        .addNewPort()
        .withProtocol("TCP")
        .withPort(new IntOrString(gate.controlPlanePort()))
        .endPort()
        .build();
  }

  /**
   * The provider's port: at its address when the URL gives an IP literal, else anywhere outside the
   * excepted ranges (a NetworkPolicy cannot name a host).
   */
  private static NetworkPolicyEgressRule provider(NetworkPolicyTemplate template, PodAgent agent) {
    URI url = URI.create(agent.provider().baseUrl());
    int port = url.getPort() > 0 ? url.getPort() : 443;
    String host = Objects.requireNonNullElse(url.getHost(), "");
    boolean literal = IPV4.matcher(host).matches();
    return new NetworkPolicyEgressRuleBuilder()
        .addNewTo()
        .withNewIpBlock()
        .withCidr(literal ? host + "/32" : "0.0.0.0/0")
        .withExcept(literal ? List.of() : template.egressExcept())
        .endIpBlock()
        .endTo()
        .addNewPort()
        .withProtocol("TCP")
        .withPort(new IntOrString(port))
        .endPort()
        .build();
  }

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  /**
   * DNS, to the cluster's DNS pods only: a port-53 rule without a destination would open port 53 of
   * every pod, service and node in the excepted ranges.
   */
  private static NetworkPolicyEgressRule dns() {
    return new NetworkPolicyEgressRuleBuilder()
        .addNewTo()
        .withNamespaceSelector(
            new LabelSelectorBuilder()
                .withMatchLabels(Map.of(NAMESPACE_NAME, DNS_NAMESPACE))
                .build())
        .withPodSelector(
            new LabelSelectorBuilder().withMatchLabels(Map.of("k8s-app", "kube-dns")).build())
        .endTo()
        .addNewPort()
        .withProtocol("UDP")
        .withPort(new IntOrString(53))
        .endPort()
        .addNewPort()
        .withProtocol("TCP")
        .withPort(new IntOrString(53))
        .endPort()
        .build();
  }
}
