package dev.berth.server;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.WorkloadType;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How the agent sessions' tool calls are gated (docs/agents.md, "Approval gate").
 *
 * @param policies {@code --approval TYPE=off|external|all}: a type's policy, which wins over the
 *     providers file's {@code approval} key; a type named in neither has its default ({@code
 *     external} for {@code minimax-code}, {@code off} for the others)
 * @param timeout {@code --approval-timeout}: how long an approval waits for a decision before it
 *     expires (and the proxy refuses the call)
 * @param gateway {@code --approval-gateway-url} and its companions: an external gateway each new
 *     approval is forwarded to
 * @param podCallback {@code --approval-callback-url}: the control plane's base URL as session pods
 *     reach it ({@code --runtime kubernetes}; their proxies ask {@code <url>/gateway}); empty for
 *     the server's own loopback address, which a node on this machine (and a simulated cluster)
 *     shares
 */
public record ApprovalSettings(
    Map<String, ApprovalPolicy> policies,
    Duration timeout,
    Optional<ExternalGateway> gateway,
    Optional<URI> podCallback) {

  /** The default of {@code --approval-timeout}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

  /** The types gated unless configured otherwise. */
  private static final Map<String, ApprovalPolicy> DEFAULTS =
      Map.of("minimax-code", ApprovalPolicy.EXTERNAL);

  /**
   * An external approval gateway, spoken to with the same protocol the proxies speak to Berth.
   *
   * @param url its base ({@code <url>/api/requests})
   * @param keyFile the file holding its {@code x-api-key}
   * @param user the {@code userId} sent with each request, if any
   */
  public record ExternalGateway(URI url, Path keyFile, Optional<String> user) {
    public ExternalGateway {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(keyFile, "keyFile");
      Objects.requireNonNull(user, "user");
      String scheme = Objects.requireNonNullElse(url.getScheme(), "");
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw new InvalidValueException(
            "--approval-gateway-url must be an http or https URL such as"
                + " https://gateway.example.com, was "
                + ChoiceText.shape(url.toString()));
      }
    }
  }

  public ApprovalSettings {
    policies = Map.copyOf(policies);
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(gateway, "gateway");
    Objects.requireNonNull(podCallback, "podCallback");
    podCallback.ifPresent(
        url -> {
          String scheme = Objects.requireNonNullElse(url.getScheme(), "");
          if ((!scheme.equals("http") && !scheme.equals("https")) || url.getHost() == null) {
            throw new InvalidValueException(
                "--approval-callback-url must be the control plane's http or https URL as session"
                    + " pods reach it, such as http://berth.berth-system.svc:8080, was "
                    + ChoiceText.shape(url.toString()));
          }
        });
    if (timeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new InvalidValueException(
          "--approval-timeout must be at least 1s, was " + timeout + "; the default is 10m");
    }
  }

  /** Settings whose pods reach the server at its own loopback address. */
  public ApprovalSettings(
      Map<String, ApprovalPolicy> policies, Duration timeout, Optional<ExternalGateway> gateway) {
    this(policies, timeout, gateway, Optional.empty());
  }

  public static ApprovalSettings defaults() {
    return new ApprovalSettings(Map.of(), DEFAULT_TIMEOUT, Optional.empty());
  }

  /**
   * The policy of {@code type}: the flag's, else the providers file's, else the type's default.
   *
   * @param fromFile the providers file's {@code approval} of the type, if it has one
   */
  public ApprovalPolicy policyFor(WorkloadType type, Optional<ApprovalPolicy> fromFile) {
    ApprovalPolicy configured = policies.get(type.value());
    if (configured != null) {
      return configured;
    }
    return fromFile.orElse(DEFAULTS.getOrDefault(type.value(), ApprovalPolicy.OFF));
  }

  /**
   * The {@code approval} keys of the providers file ({@code {"minimax-code": {"approval": "all",
   * …}}}), by type.
   *
   * @throws IllegalArgumentException naming the type and the value when one is no policy
   */
  public static Map<String, ApprovalPolicy> fromProvidersFile(Optional<Path> file) {
    if (file.isEmpty()) {
      return Map.of();
    }
    tools.jackson.databind.JsonNode root;
    try {
      root =
          tools.jackson.databind.json.JsonMapper.builder()
              .build()
              .readTree(java.nio.file.Files.readString(file.get()));
    } catch (java.io.IOException | tools.jackson.core.JacksonException e) {
      return Map.of(); // the agent catalog reads the same file and says what is wrong with it
    }
    Map<String, ApprovalPolicy> policies = new java.util.HashMap<>();
    for (String type : root.propertyNames()) {
      tools.jackson.databind.JsonNode value = root.path(type).get("approval");
      if (value != null) {
        try {
          policies.put(type, ApprovalPolicy.parse(value.asString("")));
        } catch (InvalidValueException e) {
          throw new IllegalArgumentException(
              "providers file: " + type + ".approval: " + e.getMessage(), e);
        }
      }
    }
    return policies;
  }

  /**
   * Reads one {@code --approval TYPE=POLICY} value into {@code into}.
   *
   * @throws InvalidValueException naming the value and the form it must take
   */
  public static void parseFlag(String value, Map<String, ApprovalPolicy> into) {
    int eq = value.indexOf('=');
    if (eq <= 0) {
      throw new InvalidValueException(
          "--approval must be TYPE=off|external|all, such as claude-code=external, was \""
              + value
              + "\"");
    }
    String type = value.substring(0, eq);
    if (!dev.berth.core.access.WorkloadCatalog.isAgent(new WorkloadType(type))) {
      throw new InvalidValueException(
          "--approval "
              + value
              + ": "
              + type
              + " is not an agent type; use one of "
              + agentNames());
    }
    into.put(type, ApprovalPolicy.parse(value.substring(eq + 1)));
  }

  private static String agentNames() {
    return dev.berth.core.access.WorkloadCatalog.AGENT_TYPES.stream()
        .map(WorkloadType::value)
        .sorted()
        .toList()
        .toString();
  }
}
