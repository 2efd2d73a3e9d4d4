package dev.berth.kubernetes.runtime;

import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.SessionId;
import dev.berth.core.tenant.DisconnectGrant;
import dev.berth.core.tenant.NetworkAccess;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * How a {@link KubernetesRuntime} makes and reaches its pods.
 *
 * @param installation the installation whose pods these are (label {@code berth.dev/installation})
 * @param pod what every session pod shares
 * @param tokens the agents' tokens
 * @param address where a pod's agent answers; {@link PodAddress#podIp} in a cluster
 * @param networkPolicy the NetworkPolicy each pod gets; empty for none (a cluster that does not
 *     enforce them, or one whose namespace policy already confines sessions)
 * @param networkAccess the most network a session may have (its tenant's grant); only the
 *     NetworkPolicy enforces it, so without one every session gets the namespace's network
 * @param agents what an agent session's pod runs (its CLI in the image, its provider and the Secret
 *     holding its token); empty for a workload type this installation does not run on pods
 * @param providerAddresses what a provider's host name resolves to when a pod's NetworkPolicy is
 *     made (the system resolver's but in tests)
 * @param disconnect what a session pod's agent does when its control lease expires (its tenant's
 *     policy, or the control plane's default); empty leaves it to the agent's own default
 */
public record KubernetesRuntimeSettings(
    String installation,
    PodTemplate pod,
    AgentTokens tokens,
    PodAddress address,
    Optional<NetworkPolicyTemplate> networkPolicy,
    Function<SessionId, NetworkAccess> networkAccess,
    Function<RuntimeSpec, Optional<PodAgent>> agents,
    ProviderAddresses providerAddresses,
    Function<SessionId, Optional<DisconnectGrant>> disconnect) {

  public KubernetesRuntimeSettings {
    Objects.requireNonNull(disconnect, "disconnect");
    Objects.requireNonNull(installation, "installation");
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(networkPolicy, "networkPolicy");
    Objects.requireNonNull(networkAccess, "networkAccess");
    Objects.requireNonNull(agents, "agents");
    Objects.requireNonNull(providerAddresses, "providerAddresses");
    if (installation.isBlank()) {
      throw new IllegalArgumentException("the installation id of a Kubernetes runtime is blank");
    }
  }

  /** Agents at their pod IP and the template's port, no NetworkPolicy, shells only. */
  public static KubernetesRuntimeSettings of(
      String installation, PodTemplate pod, AgentTokens tokens) {
    return new KubernetesRuntimeSettings(
        installation,
        pod,
        tokens,
        PodAddress.podIp(pod.agentPort()),
        Optional.empty(),
        session -> NetworkAccess.EGRESS,
        spec -> Optional.empty(),
        ProviderAddresses.DNS,
        session -> Optional.empty());
  }

  public KubernetesRuntimeSettings withAddress(PodAddress at) {
    return new KubernetesRuntimeSettings(
        installation,
        pod,
        tokens,
        at,
        networkPolicy,
        networkAccess,
        agents,
        providerAddresses,
        disconnect);
  }

  /** These settings, each pod confined by {@code policy} as {@code access} says. */
  public KubernetesRuntimeSettings withNetworkPolicy(
      NetworkPolicyTemplate policy, Function<SessionId, NetworkAccess> access) {
    return new KubernetesRuntimeSettings(
        installation,
        pod,
        tokens,
        address,
        Optional.of(policy),
        access,
        agents,
        providerAddresses,
        disconnect);
  }

  /** These settings, agent sessions' pods running what {@code launches} says for their spec. */
  public KubernetesRuntimeSettings withAgents(Function<RuntimeSpec, Optional<PodAgent>> launches) {
    return new KubernetesRuntimeSettings(
        installation,
        pod,
        tokens,
        address,
        networkPolicy,
        networkAccess,
        launches,
        providerAddresses,
        disconnect);
  }

  /** These settings, a provider's host name resolved by {@code addresses}. */
  public KubernetesRuntimeSettings withProviderAddresses(ProviderAddresses addresses) {
    return new KubernetesRuntimeSettings(
        installation,
        pod,
        tokens,
        address,
        networkPolicy,
        networkAccess,
        agents,
        addresses,
        disconnect);
  }

  /**
   * These settings, each session pod's agent held to the disconnect policy {@code policies} says.
   */
  public KubernetesRuntimeSettings withDisconnect(
      Function<SessionId, Optional<DisconnectGrant>> policies) {
    return new KubernetesRuntimeSettings(
        installation,
        pod,
        tokens,
        address,
        networkPolicy,
        networkAccess,
        agents,
        providerAddresses,
        policies);
  }
}
