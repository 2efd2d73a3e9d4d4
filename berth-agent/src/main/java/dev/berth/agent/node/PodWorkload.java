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
    String type, String cli, String model, List<AgentLaunch.Plugin> plugins, URI proxy) {

  public PodWorkload {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(cli, "cli");
    Objects.requireNonNull(model, "model");
    plugins = List.copyOf(plugins);
    Objects.requireNonNull(proxy, "proxy");
  }

  /** The sidecar's usual address: the pod's loopback, port 8091. */
  public static final URI SIDECAR = URI.create("http://127.0.0.1:8091");

  /**
   * The launch the host runs: the CLI and model, with the sidecar as its provider. The provider's
   * token is the placeholder the CLI gets anyway; the host starts no proxy that would use it.
   */
  AgentLaunch launch() {
    return new AgentLaunch(
        cli,
        model,
        new AgentLaunch.Provider(
            type,
            proxy.toString(),
            dev.berth.agent.agentcli.ProviderEndpoint.PLACEHOLDER,
            type.equals("codex") ? "openai" : "anthropic",
            null,
            null),
        plugins);
  }
}
