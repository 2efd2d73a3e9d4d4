package dev.berth.agent.node;

import dev.berth.agent.host.AgentLaunch;
import java.net.URI;
import java.util.List;
import java.util.Objects;

/**
 * The agent session a pod's {@code berth agent} hosts, as its arguments give it: the type, the CLI
 * in the image, the model, the plugins in the image, and where the pod's credential proxy sidecar
 * answers. No provider and no token: those are the sidecar's alone.
 *
 * @param type the workload type, e.g. {@code claude-code}
 * @param cli the CLI's absolute path in the agent image
 * @param model the model each prompt asks for ({@code platform-default} for the CLI's own)
 * @param plugins the session's plugins, copied from the image at the first start
 * @param proxy the sidecar's base URL, {@code http://127.0.0.1:8091} in a pod
 */
public record PodWorkload(
    String type,
    String cli,
    String model,
    List<AgentLaunch.Plugin> plugins,
    URI proxy,
    java.util.Optional<String> approval) {

  /** A workload whose sidecar gates nothing. */
  public PodWorkload(
      String type, String cli, String model, List<AgentLaunch.Plugin> plugins, URI proxy) {
    this(type, cli, model, plugins, proxy, java.util.Optional.empty());
  }

  public PodWorkload {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(cli, "cli");
    Objects.requireNonNull(model, "model");
    plugins = List.copyOf(plugins);
    Objects.requireNonNull(proxy, "proxy");
    Objects.requireNonNull(approval, "approval");
    approval.ifPresent(dev.berth.core.approval.ApprovalPolicy::parse);
  }

  /** The sidecar's usual address: the pod's loopback, port 8091. */
  public static final URI SIDECAR = URI.create("http://127.0.0.1:8091");

  /**
   * The launch the host runs: the CLI, model and plugins. Its provider is a stand-in the host never
   * uses (it starts no proxy from it: the CLI's base URL is the sidecar's, see {@code
   * AgentWorkload.ProxyPlace.Sidecar}), with the placeholder token the CLI gets anyway and a {@code
   * .invalid} host (RFC 2606) that resolves nowhere, should anything ever dial it.
   */
  AgentLaunch launch() {
    return new AgentLaunch(
        cli,
        model,
        new AgentLaunch.Provider(
            type,
            "https://credential-proxy-sidecar.invalid",
            dev.berth.agent.agentcli.ProviderEndpoint.PLACEHOLDER,
            type.equals("codex") ? "openai" : "anthropic",
            null,
            null),
        plugins,
        approval.map(PodWorkload::sidecarGate).orElse(null));
  }

  /**
   * The sidecar's gate, as the host needs to know of it: that it is on (so that the CLI declares no
   * provider-run tool, which the gated sidecar would refuse, and offers the tools the gate decides
   * on). A stand-in like the provider above: the sidecar holds the gateway's key, the host never
   * dials the gateway.
   */
  private static AgentLaunch.Approval sidecarGate(String policy) {
    return new AgentLaunch.Approval(policy, SIDECAR.toString(), "", 1);
  }
}
