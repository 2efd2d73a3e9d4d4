package dev.berth.agent.agentcli;

/**
 * What a CLI is told about its model provider: the credential proxy's loopback URL and a
 * placeholder token. The real token stays with the proxy; the workload never sees it.
 */
public record ProviderEndpoint(String baseUrl, String placeholderToken, boolean gated) {

  /**
   * An endpoint whose proxy has no approval gate. With one ({@code gated}), the CLI is told to
   * declare no provider-run tool: the gate's proxy refuses a request that declares one.
   */
  public ProviderEndpoint(String baseUrl, String placeholderToken) {
    this(baseUrl, placeholderToken, false);
  }

  /** The placeholder every agent workload is given instead of a token. */
  public static final String PLACEHOLDER = "berth-credential-proxy";
}
