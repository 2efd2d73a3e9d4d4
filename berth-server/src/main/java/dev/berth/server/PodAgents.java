package dev.berth.server;

import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.kubernetes.runtime.PodAgent;
import java.util.Optional;

/**
 * What an agent session's pod runs, from the catalog the server read for {@code --runtime
 * kubernetes} ({@link AgentCatalog#loadForPods}): the CLI in the image, the model (the type's
 * default for {@code platform-default}), the plugins (the marketplace directory is at the same path
 * in the agent image), and the provider with the Secret that holds its token.
 */
final class PodAgents {

  private PodAgents() {}

  /**
   * The pod's agent for {@code spec} with its approval gate ({@link ServerApprovals#podGate}, the
   * policy the local runtime's launch gets too); empty for a shell or a type not configured.
   */
  static Optional<PodAgent> of(
      AgentCatalog catalog,
      RuntimeSpec spec,
      java.util.function.Function<RuntimeSpec, Optional<PodAgent.Gate>> gates) {
    return of(catalog, spec).map(agent -> agent.withGate(gates.apply(spec)));
  }

  /** The pod's agent for {@code spec}, not gated; empty for a shell or a type not configured. */
  static Optional<PodAgent> of(AgentCatalog catalog, RuntimeSpec spec) {
    if (catalog.unavailable(spec.workload()).isPresent()) {
      return Optional.empty();
    }
    return catalog
        .profile(spec.workload())
        .filter(p -> p.cli().isPresent() && p.provider().isPresent())
        .flatMap(
            profile -> {
              AgentCatalog.Provider provider = profile.provider().orElseThrow();
              if (!(provider.token() instanceof AgentCatalog.Credential.InSecret secret)) {
                return Optional.empty();
              }
              PluginMarketplace market = catalog.plugins();
              return Optional.of(
                  new PodAgent(
                      profile.cli().orElseThrow().toString(),
                      AgentCatalog.resolveModel(profile, spec.model()),
                      catalog.passesPlugins(spec.workload())
                          ? spec.plugins().stream()
                              .filter(market.plugins()::contains)
                              .map(p -> new PodAgent.Plugin(p.value(), market.path(p).toString()))
                              .toList()
                          : java.util.List.of(),
                      new PodAgent.Provider(
                          provider.url().toString(),
                          provider.api(),
                          Optional.of(provider.authHeader()),
                          provider.caFile().map(Object::toString),
                          secret.secret(),
                          provider.egressCidrs())));
            });
  }
}
