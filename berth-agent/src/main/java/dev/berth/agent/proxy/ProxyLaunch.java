package dev.berth.agent.proxy;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.berth.agent.proxy.gate.GateSettings;
import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.session.SessionId;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * What one {@code berth proxy} process serves: its session, where it listens, the provider it
 * forwards to (with the token) and, when the session's tool calls are gated, the gateway it asks.
 *
 * <p>It comes one of two ways. On the local runtime the node writes it as one JSON line on the
 * proxy's stdin ({@link #fromJson}): the token then appears in neither the proxy's command line nor
 * its environment, both of which other processes of the same user can read. In a pod sidecar it
 * comes from {@code BERTH_PROXY_*} variables ({@link #fromEnv}), set from the provider's Secret in
 * that container only.
 *
 * <p>{@link #check} turns it into what the proxy runs on, or fails with a {@link Invalid} naming
 * the field (as its source spells it), the rule, the value (never the token or the gateway key) and
 * the way out.
 *
 * @param session the session the proxy serves; its {@code /healthz} answers with it
 * @param listen {@code unix:<absolute path>} or {@code HOST:PORT}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProxyLaunch(
    String session, String listen, Provider provider, @Nullable Approval approval) {

  /** The source of a launch, which decides how a field is named in an error. */
  public enum Source {
    /** One JSON line on stdin: fields by their JSON path ({@code provider.baseUrl}). */
    STDIN,
    /** {@code berth proxy --session ID --listen ADDR} with the {@code BERTH_PROXY_*} variables. */
    ENV
  }

  public static final String ENV_BASE_URL = "BERTH_PROXY_BASE_URL";
  public static final String ENV_API = "BERTH_PROXY_API";
  public static final String ENV_AUTH_HEADER = "BERTH_PROXY_AUTH_HEADER";
  public static final String ENV_CA_FILE = "BERTH_PROXY_CA_FILE";
  public static final String ENV_TOKEN = "BERTH_PROXY_TOKEN";
  public static final String ENV_APPROVAL_POLICY = "BERTH_PROXY_APPROVAL_POLICY";
  public static final String ENV_GATEWAY_URL = "BERTH_PROXY_GATEWAY_URL";
  public static final String ENV_GATEWAY_KEY = "BERTH_PROXY_GATEWAY_KEY";
  public static final String ENV_APPROVAL_TIMEOUT = "BERTH_PROXY_APPROVAL_TIMEOUT_SECONDS";

  /** The approval timeout when the sidecar's environment names none: the control plane's. */
  public static final long DEFAULT_APPROVAL_TIMEOUT_SECONDS = 600;

  private static final JsonMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
  private static final Pattern SESSION = Pattern.compile("[0-9a-f]{32}");
  private static final Pattern HOST_PORT =
      Pattern.compile("([A-Za-z0-9.\\-]+|\\[[0-9a-fA-F:]+]):(\\d{1,5})");

  /**
   * The provider as the launch names it (the wire form of {@link ProviderProfile}).
   *
   * @param api {@code anthropic} or {@code openai}
   * @param caFile a PEM CA certificate to trust besides the system's, as a path on this host
   * @param secrets further literals output must never show (the token is always one)
   * @param authHeader the header the token goes in; none for the API family's usual one
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Provider(
      String name,
      String baseUrl,
      String token,
      String api,
      @Nullable String caFile,
      @Nullable List<String> secrets,
      @Nullable String authHeader) {
    @Override
    public String toString() {
      return "Provider[" + name + " -> " + baseUrl + ", " + api + "]"; // never the token
    }
  }

  /** The approval gate: policy, the gateway's base URL, the session's key, the timeout. */
  public record Approval(String policy, String gateway, String key, long timeoutSeconds) {
    @Override
    public String toString() {
      return "Approval[" + policy + " via " + gateway + "]"; // never the key
    }
  }

  @Override
  public String toString() {
    return "ProxyLaunch[" + session + " on " + listen + ", " + provider + ", " + approval + "]";
  }

  /** A launch that cannot run: the message names the field, the rule, the value and the way out. */
  public static final class Invalid extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message);
    }
  }

  /** What the proxy runs on, checked. */
  public record Checked(
      SessionId session,
      CredentialProxy.Listen listen,
      ProviderProfile profile,
      Optional<GateSettings> gate) {
    @Override
    public String toString() {
      return "Checked[" + session + " on " + listen + ", " + profile + ", " + gate + "]";
    }
  }

  /** The one JSON line the node writes on the proxy's stdin. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JacksonException e) {
      throw new IllegalStateException("cannot write the proxy launch of " + session, e);
    }
  }

  /** A launch read from its JSON line. */
  public static ProxyLaunch fromJson(String line) {
    ProxyLaunch launch;
    try {
      launch = JSON.readValue(line, ProxyLaunch.class);
    } catch (JacksonException e) {
      // Not the parser's message: it may quote the line, token included.
      throw new Invalid(
          "the launch on stdin must be one JSON object {\"session\",\"listen\",\"provider\":{...}},"
              + " was not one ("
              + e.getClass().getSimpleName()
              + "); write it as the node does (ProxyLaunch.toJson)");
    }
    if (launch == null) {
      throw new Invalid("the launch on stdin was empty; write one JSON object on one line");
    }
    return launch;
  }

  /** A sidecar's launch: the provider and the gate from {@code BERTH_PROXY_*} variables. */
  public static ProxyLaunch fromEnv(String session, String listen, Map<String, String> env) {
    String baseUrl = required(env, ENV_BASE_URL, "the provider's https origin");
    String api = required(env, ENV_API, "anthropic or openai");
    String token = required(env, ENV_TOKEN, "the provider's token (from its Secret)");
    Provider provider =
        new Provider(
            hostOf(baseUrl),
            baseUrl,
            token,
            api,
            blankToNull(env.get(ENV_CA_FILE)),
            null,
            blankToNull(env.get(ENV_AUTH_HEADER)));
    String policy = blankToNull(env.get(ENV_APPROVAL_POLICY));
    Approval approval = null;
    if (policy != null && !policy.equals(ApprovalPolicy.OFF.wireName())) {
      String timeout = blankToNull(env.get(ENV_APPROVAL_TIMEOUT));
      long seconds;
      try {
        seconds = timeout == null ? DEFAULT_APPROVAL_TIMEOUT_SECONDS : Long.parseLong(timeout);
      } catch (NumberFormatException e) {
        throw new Invalid(
            ENV_APPROVAL_TIMEOUT
                + " must be a whole number of seconds, was \""
                + timeout
                + "\"; set it to e.g. 600 or leave it unset");
      }
      approval =
          new Approval(
              policy,
              required(env, ENV_GATEWAY_URL, "the approval gateway's URL when a policy gates"),
              required(env, ENV_GATEWAY_KEY, "the session's gateway key (from its Secret)"),
              seconds);
    }
    return new ProxyLaunch(session, listen, provider, approval);
  }

  /** Checks every field and gives what the proxy runs on. */
  public Checked check(Source source) {
    Names names = new Names(source);
    if (session == null || !SESSION.matcher(session).matches()) {
      throw new Invalid(
          names.session()
              + " must be a session id (32 lowercase hex characters), was \""
              + session
              + "\"; pass the session's id");
    }
    CredentialProxy.Listen at = listenAt(names);
    if (provider == null) {
      throw new Invalid("provider is missing; the launch must name the provider to forward to");
    }
    return new Checked(new SessionId(session), at, profile(names), gate(names));
  }

  private CredentialProxy.Listen listenAt(Names names) {
    String value = listen == null ? "" : listen;
    if (value.startsWith("unix:")) {
      Path path = Path.of(value.substring("unix:".length()));
      if (path.isAbsolute()) {
        return new CredentialProxy.Listen.Unix(path);
      }
    } else {
      var m = HOST_PORT.matcher(value);
      if (m.matches()) {
        int port = Integer.parseInt(m.group(2));
        if (port >= 1 && port <= 65535) {
          String host = m.group(1).replace("[", "").replace("]", "");
          return new CredentialProxy.Listen.Port(host, port);
        }
      }
    }
    throw new Invalid(
        names.listen()
            + " must be unix:<absolute path> or HOST:PORT with a port 1-65535, was \""
            + value
            + "\"; e.g. unix:/run/berth/proxy.sock or 127.0.0.1:8091");
  }

  private ProviderProfile profile(Names names) {
    String name =
        provider.name() == null || provider.name().isBlank() ? "provider" : provider.name();
    URI upstream = upstream(names);
    String token = provider.token();
    if (token == null || token.isEmpty() || token.indexOf('\r') >= 0 || token.indexOf('\n') >= 0) {
      throw new Invalid(
          names.token()
              + " must be a non-empty token on one line (no CR or LF), was "
              + (token == null || token.isEmpty() ? "empty" : "a value with a line break")
              + "; check the provider's token file or Secret (a trailing newline is the usual"
              + " cause)");
    }
    ProviderProfile.Api family =
        switch (provider.api() == null ? "" : provider.api()) {
          case "anthropic" -> ProviderProfile.Api.ANTHROPIC;
          case "openai" -> ProviderProfile.Api.OPENAI;
          default ->
              throw new Invalid(
                  names.api()
                      + " must be anthropic or openai, was \""
                      + provider.api()
                      + "\"; name the API family the provider speaks");
        };
    AuthHeader header;
    try {
      header =
          provider.authHeader() == null
              ? AuthHeader.defaultFor(family)
              : new AuthHeader(provider.authHeader());
    } catch (RuntimeException e) {
      throw new Invalid(names.authHeader() + ": " + e.getMessage());
    }
    Optional<Path> ca = Optional.ofNullable(provider.caFile()).map(Path::of);
    if (ca.isPresent() && !ca.get().isAbsolute()) {
      throw new Invalid(
          names.caFile()
              + " must be an absolute path to a PEM certificate, was \""
              + provider.caFile()
              + "\"; give the file's full path");
    }
    List<String> secrets = provider.secrets() == null ? List.of() : provider.secrets();
    return new ProviderProfile(name, upstream, token, ca, family, secrets, header);
  }

  private URI upstream(Names names) {
    String value = provider.baseUrl() == null ? "" : provider.baseUrl();
    String rule = "must be an absolute https origin with an optional base path";
    try {
      URI uri = new URI(value);
      if ("https".equals(uri.getScheme())
          && uri.getHost() != null
          && uri.getRawUserInfo() == null
          && uri.getRawQuery() == null
          && uri.getRawFragment() == null) {
        return uri;
      }
      if (uri.getRawUserInfo() != null || uri.getRawQuery() != null) {
        // It may carry a credential: name the origin only.
        value = uri.getScheme() + "://" + uri.getHost() + "…";
        rule = "must carry no user info, query or fragment";
      }
    } catch (URISyntaxException e) {
      value = "(not a URI)";
    }
    throw new Invalid(
        names.baseUrl() + " " + rule + ", was \"" + value + "\"; e.g. https://api.anthropic.com");
  }

  private Optional<GateSettings> gate(Names names) {
    if (approval == null) {
      return Optional.empty();
    }
    ApprovalPolicy policy;
    try {
      policy = ApprovalPolicy.parse(approval.policy());
    } catch (RuntimeException e) {
      throw new Invalid(
          names.policy()
              + " must be off, external or all, was \""
              + approval.policy()
              + "\"; pick one");
    }
    if (policy == ApprovalPolicy.OFF) {
      return Optional.empty();
    }
    URI gateway;
    try {
      gateway = new URI(approval.gateway() == null ? "" : approval.gateway());
    } catch (URISyntaxException e) {
      gateway = URI.create("invalid:");
    }
    String scheme = gateway.getScheme();
    if (!("http".equals(scheme) || "https".equals(scheme)) || gateway.getHost() == null) {
      throw new Invalid(
          names.gateway()
              + " must be an absolute http(s) URL, was \""
              + approval.gateway()
              + "\"; give the control plane's <base>/gateway");
    }
    String key = approval.key();
    if (key == null || key.isEmpty() || key.indexOf('\r') >= 0 || key.indexOf('\n') >= 0) {
      throw new Invalid(
          names.key() + " must be a non-empty key on one line; check the runtime's Secret");
    }
    if (approval.timeoutSeconds() <= 0) {
      throw new Invalid(
          names.timeout()
              + " must be a positive number of seconds, was "
              + approval.timeoutSeconds()
              + "; e.g. 600");
    }
    return Optional.of(
        new GateSettings(policy, gateway, key, Duration.ofSeconds(approval.timeoutSeconds())));
  }

  /** The provider's name in a sidecar: its upstream's host (the name shows in logs only). */
  private static String hostOf(String baseUrl) {
    try {
      String host = new URI(baseUrl).getHost();
      return host == null ? "provider" : host;
    } catch (URISyntaxException e) {
      return "provider"; // check() names the bad URL
    }
  }

  private static String required(Map<String, String> env, String name, String what) {
    String value = blankToNull(env.get(name));
    if (value == null) {
      throw new Invalid(name + " is not set; set it to " + what);
    }
    return value;
  }

  private static @Nullable String blankToNull(@Nullable String value) {
    return value == null || value.isBlank() ? null : value;
  }

  /** How each source spells a field. */
  private record Names(Source source) {
    private String of(String json, String env) {
      return source == Source.STDIN ? json : env;
    }

    String session() {
      return of("session", "--session");
    }

    String listen() {
      return of("listen", "--listen");
    }

    String baseUrl() {
      return of("provider.baseUrl", ENV_BASE_URL);
    }

    String token() {
      return of("provider.token", ENV_TOKEN);
    }

    String api() {
      return of("provider.api", ENV_API);
    }

    String authHeader() {
      return of("provider.authHeader", ENV_AUTH_HEADER);
    }

    String caFile() {
      return of("provider.caFile", ENV_CA_FILE);
    }

    String policy() {
      return of("approval.policy", ENV_APPROVAL_POLICY);
    }

    String gateway() {
      return of("approval.gateway", ENV_GATEWAY_URL);
    }

    String key() {
      return of("approval.key", ENV_GATEWAY_KEY);
    }

    String timeout() {
      return of("approval.timeoutSeconds", ENV_APPROVAL_TIMEOUT);
    }
  }
}
