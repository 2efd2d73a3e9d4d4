package dev.berth.agent.agentcli;

/**
 * What a CLI is told about its model provider: the credential proxy's loopback URL and a
 * placeholder token. The real token stays with the proxy; the workload never sees it.
 */
public record ProviderEndpoint(String baseUrl, String placeholderToken) {

  /** The placeholder every agent workload is given instead of a token. */
  public static final String PLACEHOLDER = "berth-credential-proxy";
}
