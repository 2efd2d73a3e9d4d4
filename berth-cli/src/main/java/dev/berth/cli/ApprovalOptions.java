package dev.berth.cli;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.server.ApprovalSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The server's approval gate options (docs/agents.md, "Approval gate"): which agent types' tool
 * calls wait for a decision, for how long, and an external gateway that decides them.
 */
final class ApprovalOptions {

  @Option(
      names = "--approval",
      split = ",",
      paramLabel = "TYPE=POLICY",
      description =
          "Which tool calls of an agent type wait for approval: off, external (web fetch and"
              + " search, MCP tools) or all (repeatable; default minimax-code=external, the"
              + " others off; a tenant's grant can tighten it).")
  private List<String> policies = new ArrayList<>();

  @Option(
      names = "--approval-timeout",
      paramLabel = "DURATION",
      defaultValue = "10m",
      converter = DurationConverter.class,
      description =
          "How long a tool call waits for a decision before its approval expires and the call is"
              + " refused (default: ${DEFAULT-VALUE}).")
  private Duration timeout = ApprovalSettings.DEFAULT_TIMEOUT;

  @Option(
      names = "--approval-gateway-url",
      paramLabel = "URL",
      description =
          "An external approval gateway: each new approval is forwarded to URL/api/requests and"
              + " its decision polled (needs --approval-gateway-key-file).")
  private @Nullable String gatewayUrl;

  @Option(
      names = "--approval-gateway-key-file",
      paramLabel = "FILE",
      description = "The file holding the external gateway's x-api-key.")
  private @Nullable Path gatewayKeyFile;

  @Option(
      names = "--approval-gateway-user",
      paramLabel = "ID",
      description = "The userId sent to the external gateway with each request.")
  private @Nullable String gatewayUser;

  @Option(
      names = "--approval-callback-url",
      paramLabel = "URL",
      description =
          "With --runtime kubernetes: the control plane's address as session pods reach it, e.g."
              + " http://berth.berth-system.svc:8080; gated sessions' proxies ask URL/gateway"
              + " (default: the server's own address, 127.0.0.1 when it listens on every"
              + " address).")
  private @Nullable String callbackUrl;

  /**
   * @throws IllegalArgumentException naming the option and what it must be
   */
  ApprovalSettings settings() {
    Map<String, ApprovalPolicy> byType = new LinkedHashMap<>();
    for (String entry : policies) {
      ApprovalSettings.parseFlag(entry, byType);
    }
    if ((gatewayUrl == null) != (gatewayKeyFile == null)) {
      throw new IllegalArgumentException(
          "--approval-gateway-url and --approval-gateway-key-file go together: give both, or"
              + " neither");
    }
    Optional<ApprovalSettings.ExternalGateway> gateway =
        gatewayUrl == null || gatewayKeyFile == null
            ? Optional.empty()
            : Optional.of(
                new ApprovalSettings.ExternalGateway(
                    URI.create(gatewayUrl), gatewayKeyFile, Optional.ofNullable(gatewayUser)));
    return new ApprovalSettings(
        byType,
        timeout,
        gateway,
        Optional.ofNullable(callbackUrl).map(ApprovalOptions::callbackUri));
  }

  private static URI callbackUri(String written) {
    try {
      return new URI(written);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalArgumentException(
          "--approval-callback-url must be the control plane's http or https URL as session pods"
              + " reach it, such as http://berth.berth-system.svc:8080, was not a URL: "
              + e.getMessage(),
          e);
    }
  }
}
