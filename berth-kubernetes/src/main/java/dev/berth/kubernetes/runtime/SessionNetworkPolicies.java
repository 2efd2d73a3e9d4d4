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
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The NetworkPolicy of one runtime, named after it and selecting its pod alone (by session,
 * incarnation and installation). It is created before the pod, so that no session ever runs
 * unconfined, and owned by the pod once that exists, so that it goes with the pod.
 *
 * <p>An agent session's pod must reach its provider, for its proxy sidecar, whatever the session's
 * own network: a session without network gets egress to the provider's addresses on the provider's
 * port, and DNS. A NetworkPolicy names addresses, never hosts, and a session is hostile: a rule to
 * anything on port 443 would let the agent container's CLI send the workspace to any host, so the
 * rule names the operator's CIDRs for the provider ({@code egressCidrs}) or else the addresses its
 * host resolves to when the policy is made (at each provisioning, so at each resume). A provider
 * whose addresses change mid-session is unreachable until the next resume; one that resolves to
 * nothing fails the provisioning rather than open more. A NetworkPolicy selects pods, not
 * containers, and the containers of a pod share its network: the agent container's CLI could open
 * that connection too. It holds no token to use there (the proxy container alone has it), which is
 * what keeps the provider's account the proxy's.
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
    return policy(spec, pod, template, access, Optional.empty(), ProviderAddresses.DNS);
  }

  /**
   * @throws UnresolvedProvider when the agent's provider has no configured CIDRs and its host
   *     resolves to nothing
   */
  static NetworkPolicy policy(
      RuntimeSpec spec,
      PodTemplate pod,
      NetworkPolicyTemplate template,
      NetworkAccess access,
      Optional<PodAgent> agent,
      ProviderAddresses addresses) {
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
        .withEgress(egress(spec, template, access, agent, addresses))
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
      RuntimeSpec spec,
      NetworkPolicyTemplate template,
      NetworkAccess access,
      Optional<PodAgent> agent,
      ProviderAddresses addresses) {
    List<NetworkPolicyEgressRule> rules =
        new java.util.ArrayList<>(
            switch (access) {
              case NONE ->
                  agent.map(a -> List.of(provider(spec, a, addresses), dns())).orElse(List.of());
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
   * The provider's port at the provider's addresses alone: the operator's CIDRs, or else each
   * address its host resolves to now (an IP literal is its own).
   */
  private static NetworkPolicyEgressRule provider(
      RuntimeSpec spec, PodAgent agent, ProviderAddresses addresses) {
    URI url = URI.create(agent.provider().baseUrl());
    int port = url.getPort() > 0 ? url.getPort() : 443;
    List<String> cidrs =
        agent.provider().egressCidrs().isEmpty()
            ? resolved(spec, url, addresses)
            : agent.provider().egressCidrs();
    NetworkPolicyEgressRuleBuilder rule = new NetworkPolicyEgressRuleBuilder();
    for (String cidr : cidrs) {
      rule.addNewTo().withNewIpBlock().withCidr(cidr).endIpBlock().endTo();
    }
    return rule.addNewPort().withProtocol("TCP").withPort(new IntOrString(port)).endPort().build();
  }

  private static List<String> resolved(RuntimeSpec spec, URI url, ProviderAddresses addresses) {
    String host = Objects.requireNonNullElse(url.getHost(), "");
    String bare =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    String why;
    try {
      List<String> cidrs =
          addresses.of(bare).stream()
              .map(a -> bareAddress(a) + (a instanceof Inet6Address ? "/128" : "/32"))
              .distinct()
              .toList();
      if (!cidrs.isEmpty()) {
        return cidrs;
      }
      why = "it resolves to no address";
    } catch (UnknownHostException e) {
      why = "it does not resolve (" + e.getMessage() + ")";
    }
    String type = spec.workload().value();
    throw new UnresolvedProvider(
        "the provider host "
            + host
            + " of workload type "
            + type
            + " has no address for the session pod's NetworkPolicy: "
            + why
            + "; the pod is not made rather than let out to every address. Give the provider's"
            + " addresses as egressCidrs in the providers file (or BERTH_PROVIDER_"
            + type.toUpperCase(Locale.ROOT).replace('-', '_')
            + "_EGRESS_CIDRS), or make the host resolve from the control plane");
  }

  /** The address without an IPv6 scope ({@code %eth0}), which an ipBlock does not take. */
  private static String bareAddress(InetAddress address) {
    String text = address.getHostAddress();
    int scope = text.indexOf('%');
    return scope < 0 ? text : text.substring(0, scope);
  }

  /** A provider whose addresses are neither configured nor resolvable now. */
  static final class UnresolvedProvider extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String reason;

    UnresolvedProvider(String reason) {
      super(reason);
      this.reason = reason;
    }

    /** Why, and the way out, for the runtime's Failed observation. */
    String reason() {
      return reason;
    }
  }

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
