package dev.berth.server;

import dev.berth.core.access.WorkloadCatalog;
import dev.berth.core.session.AgentModel;
import dev.berth.core.session.PluginName;
import dev.berth.core.session.WorkloadType;
import dev.berth.kubernetes.runtime.PodAgent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The agent types this installation runs, from its configuration: each type's CLI (found on {@code
 * PATH} by its usual name, or given with {@code --agent-cli TYPE=PATH}) and its provider (a
 * providers file, {@code --providers FILE}, or {@code BERTH_PROVIDER_<TYPE>_*} variables). A type
 * runs only with both; what is missing is what a create of that type answers 503 with.
 *
 * <p>Decisions: a provider's token comes from a file or the environment, never from the providers
 * file itself nor from a request, and is read once at start; an invalid configuration (a bad URL,
 * an unknown key, a model outside the pattern) stops the server at start rather than failing the
 * first session. A type's sessions get a shared directory ({@code /shared}, archived with the
 * session) only when its configuration says {@code shared: true} ({@code
 * BERTH_PROVIDER_<TYPE>_SHARED} in the environment). See docs/agents.md.
 *
 * <p>With {@code --runtime kubernetes} ({@link #loadForPods}) the CLIs are paths in the agent image
 * and each provider's token is a Kubernetes Secret's key ({@code tokenSecret: "name/key"}, or
 * {@code BERTH_PROVIDER_<TYPE>_TOKEN_SECRET}) that the kubelet gives the session pod's proxy
 * sidecar: the control plane never holds it, so a token or token file is refused there (and a
 * Secret reference on the local runtime, whose node needs the token itself). See
 * docs/kubernetes.md.
 */
public final class AgentCatalog implements WorkloadCatalog {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Set<String> FILE_KEYS =
      Set.of(
          "url",
          "tokenFile",
          "tokenSecret",
          "caFile",
          "model",
          "models",
          "api",
          "authHeader",
          "shared",
          "approval",
          "egressCidrs");
  private static final java.util.regex.Pattern HEADER_NAME =
      java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9-]{0,63}");

  /** An agent type as configured; empty parts are what keeps it from running. */
  record Profile(
      WorkloadType type,
      Optional<Path> cli,
      Optional<Provider> provider,
      String defaultModel,
      List<String> models,
      boolean shared) {}

  /**
   * Where a type's credential proxy forwards, the token it alone holds, and the header the token
   * goes in ({@code authorization} as {@code Bearer}, or another name such as {@code x-api-key}).
   */
  record Provider(
      URI url,
      Credential token,
      Optional<Path> caFile,
      String api,
      String authHeader,
      List<String> egressCidrs) {
    Provider(URI url, Credential token, Optional<Path> caFile, String api, String authHeader) {
      this(url, token, caFile, api, authHeader, List.of());
    }

    Provider(URI url, String token, Optional<Path> caFile, String api, String authHeader) {
      this(url, new Credential.Held(token), caFile, api, authHeader);
    }

    @Override
    public String toString() {
      return "Provider[" + url + ", " + api + ", " + authHeader + "]"; // never the token
    }
  }

  /** Where a provider's token is: held here (the local node needs it), or in a pod's Secret. */
  sealed interface Credential {
    /** Read from a file or the environment at start. */
    record Held(String token) implements Credential {
      @Override
      public String toString() {
        return "Held[hidden]";
      }
    }

    /** A key of a Secret in the sessions' namespace, which only the proxy sidecar is given. */
    record InSecret(PodAgent.SecretRef secret) implements Credential {}
  }

  /** Where the CLIs and the token are: on this machine, or in the agent image and a Secret. */
  enum Placement {
    LOCAL,
    PODS
  }

  /** The CLIs in the agent image deploy/images/agent.Dockerfile builds, by command. */
  static final String IMAGE_CLIS = "/opt/berth/agent-clis/node_modules/.bin/";

  /** The types whose adapter passes plugins to the CLI (Claude Code's {@code --plugin-dir}). */
  private static final Set<String> PLUGIN_TYPES = Set.of("claude-code", "minimax-code");

  private final Map<WorkloadType, Profile> profiles;
  private final PluginMarketplace marketplace;

  private AgentCatalog(Map<WorkloadType, Profile> profiles, PluginMarketplace marketplace) {
    this.profiles = profiles;
    this.marketplace = marketplace;
  }

  /** How {@code type} is configured; empty for a type Berth does not know. */
  Optional<Profile> profile(WorkloadType type) {
    return Optional.ofNullable(profiles.get(type));
  }

  /** The marketplace the types that take plugins are offered. */
  PluginMarketplace plugins() {
    return marketplace;
  }

  /** Whether {@code type}'s CLI takes the session's plugins. */
  boolean passesPlugins(WorkloadType type) {
    return takesPlugins(type);
  }

  /** No agent type configured: shells only. */
  public static AgentCatalog none() {
    return new AgentCatalog(Map.of(), PluginMarketplace.none());
  }

  /** This catalog, offering {@code plugins} to the types that take plugins. */
  public AgentCatalog withMarketplace(PluginMarketplace plugins) {
    return new AgentCatalog(profiles, plugins);
  }

  @Override
  public List<PluginName> marketplace() {
    return marketplace.plugins();
  }

  private boolean takesPlugins(WorkloadType type) {
    return marketplace.configured() && PLUGIN_TYPES.contains(type.value());
  }

  /**
   * Reads the configuration.
   *
   * @param clis {@code --agent-cli} paths by type name
   * @param providersFile the {@code --providers} file, if given
   * @param env the process environment ({@code BERTH_PROVIDER_*}, {@code PATH})
   * @throws IllegalArgumentException naming the type, the setting and the rule it breaks
   */
  public static AgentCatalog load(
      Map<String, Path> clis, Optional<Path> providersFile, Map<String, String> env) {
    return load(clis, providersFile, env, Placement.LOCAL);
  }

  /**
   * Reads the configuration of agent sessions in pods: {@code clis} are paths in the agent image
   * (the image's own CLIs by default), and each provider's token is a Secret reference.
   */
  public static AgentCatalog loadForPods(
      Map<String, Path> clis, Optional<Path> providersFile, Map<String, String> env) {
    return load(clis, providersFile, env, Placement.PODS);
  }

  private static AgentCatalog load(
      Map<String, Path> clis,
      Optional<Path> providersFile,
      Map<String, String> env,
      Placement placement) {
    for (String type : clis.keySet()) {
      if (!WorkloadCatalog.isAgent(new WorkloadType(type))) {
        throw new IllegalArgumentException(
            "--agent-cli " + type + "=…: " + type + " is not an agent type; use one of " + names());
      }
    }
    JsonNode file = providersFile.map(AgentCatalog::readFile).orElse(JSON.createObjectNode());
    for (String key : file.propertyNames()) {
      if (!WorkloadCatalog.isAgent(new WorkloadType(key))) {
        throw new IllegalArgumentException(
            "providers file: \"" + key + "\" is not an agent type; use one of " + names());
      }
    }
    Map<WorkloadType, Profile> profiles = new LinkedHashMap<>();
    for (String name : names()) {
      WorkloadType type = new WorkloadType(name);
      Optional<Path> cli = cli(name, clis, env, placement);
      Settings settings = Settings.of(name, file.path(name), env);
      profiles.put(
          type,
          new Profile(
              type,
              cli,
              settings.provider(name, placement),
              settings.defaultModel(),
              settings.models(),
              settings.shared()));
    }
    return new AgentCatalog(Map.copyOf(profiles), PluginMarketplace.none());
  }

  /** A type's CLI: given, or found on PATH here, or the agent image's own. */
  private static Optional<Path> cli(
      String name, Map<String, Path> clis, Map<String, String> env, Placement placement) {
    if (placement == Placement.PODS) {
      Path inImage = clis.getOrDefault(name, Path.of(IMAGE_CLIS + defaultCli(name)));
      if (!inImage.isAbsolute()) {
        throw new IllegalArgumentException(
            "--agent-cli "
                + name
                + "="
                + inImage
                + ": with --runtime kubernetes the CLI is an"
                + " absolute path in the agent image");
      }
      return Optional.of(inImage);
    }
    Optional<Path> cli =
        Optional.ofNullable(clis.get(name))
            .map(Path::toAbsolutePath)
            .or(() -> onPath(defaultCli(name), env.getOrDefault("PATH", "")));
    cli.ifPresent(path -> requireExecutable(name, path));
    return cli;
  }

  @Override
  public Optional<String> unavailable(WorkloadType type) {
    if (type.equals(WorkloadType.SHELL)) {
      return Optional.empty();
    }
    Profile profile = profiles.get(type);
    if (profile == null) {
      return WorkloadCatalog.shellsOnly().unavailable(type);
    }
    List<String> missing = new ArrayList<>();
    if (profile.cli().isEmpty()) {
      missing.add(
          "its CLI ("
              + defaultCli(type.value())
              + " is not on PATH; pass --agent-cli "
              + type.value()
              + "=PATH)");
    }
    if (profile.provider().isEmpty()) {
      String prefix = envPrefix(type.value());
      missing.add(
          "its provider (set "
              + prefix
              + "URL and "
              + prefix
              + "TOKEN or "
              + prefix
              + "TOKEN_FILE (with --runtime kubernetes: "
              + prefix
              + "TOKEN_SECRET), or give it in --providers FILE)");
    }
    return missing.isEmpty()
        ? Optional.empty()
        : Optional.of(
            "workload type "
                + type.value()
                + " is not configured on this installation: it lacks "
                + String.join(" and ", missing)
                + "; see docs/agents.md");
  }

  @Override
  public List<AgentOffer> configuredAgents() {
    return profiles.values().stream()
        .filter(p -> unavailable(p.type()).isEmpty())
        .sorted(java.util.Comparator.comparing(p -> p.type().value()))
        .map(p -> new AgentOffer(p.type(), p.defaultModel(), p.models(), takesPlugins(p.type())))
        .toList();
  }

  /**
   * What the node needs to run a session of {@code type}: the CLI, the model its prompts ask for
   * ({@code platform-default} resolved to the configured default, so that a changed default takes
   * effect at the session's next start) and the provider. Empty for a shell.
   */
  Optional<Map<String, Object>> launch(WorkloadType type, Optional<AgentModel> model) {
    return launch(type, model, List.of());
  }

  /**
   * As {@link #launch(WorkloadType, Optional)}, with the session's plugins: their names and where
   * the node copies them from at the session's first start.
   */
  Optional<Map<String, Object>> launch(
      WorkloadType type, Optional<AgentModel> model, List<PluginName> plugins) {
    Profile profile = profiles.get(type);
    if (profile == null || unavailable(type).isPresent()) {
      return Optional.empty();
    }
    Provider provider = profile.provider().orElseThrow();
    if (!(provider.token() instanceof Credential.Held held)) {
      return Optional.empty();
    }
    String resolved = resolveModel(profile, model);
    Map<String, Object> wire = new LinkedHashMap<>();
    wire.put("name", type.value());
    wire.put("baseUrl", provider.url().toString());
    wire.put("token", held.token());
    wire.put("api", provider.api());
    // Sent only where it differs from the API's default: a node started by an earlier release (a
    // node outlives its server) refuses fields it does not know, and would refuse every provision.
    String apiDefault = provider.api().equals("anthropic") ? "x-api-key" : "authorization";
    if (!provider.authHeader().equalsIgnoreCase(apiDefault)) {
      wire.put("authHeader", provider.authHeader());
    }
    provider.caFile().ifPresent(ca -> wire.put("caFile", ca.toString()));
    Map<String, Object> agent = new LinkedHashMap<>();
    agent.put("cli", profile.cli().orElseThrow().toString());
    agent.put("model", resolved);
    agent.put("provider", wire);
    // Only when on: a node of an earlier release refuses fields it does not know.
    if (profile.shared()) {
      agent.put("shared", true);
    }
    if (!plugins.isEmpty() && takesPlugins(type)) {
      agent.put(
          "plugins",
          plugins.stream()
              .filter(marketplace.plugins()::contains)
              .map(p -> Map.of("name", p.value(), "path", marketplace.path(p).toString()))
              .toList());
    }
    return Optional.of(agent);
  }

  /** The model a session's prompts ask for: {@code platform-default} is the type's default. */
  static String resolveModel(Profile profile, Optional<AgentModel> model) {
    String asked = model.map(AgentModel::value).orElse(AgentModel.PLATFORM_DEFAULT_NAME);
    return asked.equals(AgentModel.PLATFORM_DEFAULT_NAME) ? profile.defaultModel() : asked;
  }

  /** A type's settings, from its file entry and its variables (which win). */
  private record Settings(
      Optional<String> url,
      Optional<String> token,
      Optional<String> tokenSecret,
      Optional<Path> caFile,
      String api,
      Optional<String> authHeader,
      String defaultModel,
      List<String> models,
      boolean shared,
      List<String> egressCidrs) {

    static Settings of(String type, JsonNode entry, Map<String, String> env) {
      for (String key : entry.propertyNames()) {
        if (!FILE_KEYS.contains(key)) {
          throw new IllegalArgumentException(
              "providers file: " + type + "." + key + " is not a setting; use " + FILE_KEYS);
        }
      }
      String prefix = envPrefix(type);
      Optional<String> url = first(env.get(prefix + "URL"), text(entry, "url"));
      Optional<String> tokenFile = first(env.get(prefix + "TOKEN_FILE"), text(entry, "tokenFile"));
      Optional<String> tokenSecret =
          first(env.get(prefix + "TOKEN_SECRET"), text(entry, "tokenSecret"));
      Optional<String> token =
          Optional.ofNullable(env.get(prefix + "TOKEN"))
              .filter(t -> !t.isEmpty())
              .or(() -> tokenFile.map(f -> readToken(type, Path.of(f))));
      Optional<Path> ca = first(env.get(prefix + "CA_FILE"), text(entry, "caFile")).map(Path::of);
      String api =
          first(env.get(prefix + "API"), text(entry, "api"))
              .orElse(type.equals("codex") ? "openai" : "anthropic");
      Optional<String> authHeader =
          first(env.get(prefix + "AUTH_HEADER"), text(entry, "authHeader"));
      String model =
          first(env.get(prefix + "MODEL"), text(entry, "model"))
              .map(m -> checkDefaultModel(type, m))
              .orElse(AgentModel.PLATFORM_DEFAULT_NAME);
      List<String> models =
          Optional.ofNullable(env.get(prefix + "MODELS"))
              .filter(m -> !m.isBlank())
              .map(m -> JSON.readTree(m))
              .or(() -> Optional.ofNullable(entry.get("models")))
              .map(node -> checkModels(type, node))
              .orElse(List.of());
      boolean shared =
          Optional.ofNullable(env.get(prefix + "SHARED"))
              .filter(v -> !v.isBlank())
              .map(v -> variableFlag(prefix + "SHARED", v))
              .or(() -> Optional.ofNullable(entry.get("shared")).map(v -> fileFlag(type, v)))
              .orElse(false);
      List<String> egressCidrs = readEgressCidrs(type, entry, env.get(prefix + "EGRESS_CIDRS"));
      return new Settings(
          url, token, tokenSecret, ca, api, authHeader, model, models, shared, egressCidrs);
    }

    Optional<Provider> provider(String type, Placement placement) {
      Optional<Credential> credential = credential(type, placement);
      if (url.isEmpty() || credential.isEmpty()) {
        return Optional.empty();
      }
      URI parsed = URI.create(url.get());
      if (!"https".equals(parsed.getScheme())
          || parsed.getHost() == null
          || parsed.getUserInfo() != null
          || parsed.getQuery() != null
          || parsed.getFragment() != null) {
        throw new IllegalArgumentException(
            "provider of "
                + type
                + ": the URL must be https://host[:port][/path] without user, query or fragment,"
                + " was "
                + url.get());
      }
      if (!api.equals("anthropic") && !api.equals("openai")) {
        throw new IllegalArgumentException(
            "provider of " + type + ": api must be anthropic or openai, was " + api);
      }
      // Anthropic's API keys go in x-api-key; OpenAI's, and a gateway's on either API, as Bearer
      // (MiniMax documents its Anthropic-compatible endpoint with ANTHROPIC_AUTH_TOKEN: Bearer).
      String header =
          authHeader.orElse(
              api.equals("anthropic") && !type.equals("minimax-code")
                  ? "x-api-key"
                  : "authorization");
      if (!HEADER_NAME.matcher(header).matches()) {
        throw new IllegalArgumentException(
            "provider of "
                + type
                + ": authHeader must be a header name (letters, digits, -) such as authorization"
                + " or x-api-key, was "
                + header);
      }
      // In a pod the CA file is the proxy container's, a path in the image.
      caFile.ifPresent(
          ca -> {
            if (placement == Placement.LOCAL ? !Files.isReadable(ca) : !ca.isAbsolute()) {
              throw new IllegalArgumentException(
                  "provider of "
                      + type
                      + ": the CA file "
                      + ca
                      + (placement == Placement.LOCAL
                          ? " cannot be read"
                          : " must be an absolute path in the agent image"));
            }
          });
      return Optional.of(
          new Provider(
              parsed,
              credential.get(),
              caFile.map(Path::toAbsolutePath),
              api,
              header,
              egressCidrs));
    }

    /**
     * The token where the placement needs it: here for the local node; in a Secret for a pod, where
     * a token the control plane holds would be one copy too many.
     */
    private Optional<Credential> credential(String type, Placement placement) {
      String prefix = envPrefix(type);
      if (placement == Placement.LOCAL) {
        if (tokenSecret.isPresent()) {
          throw new IllegalArgumentException(
              "provider of "
                  + type
                  + ": tokenSecret ("
                  + prefix
                  + "TOKEN_SECRET) names a Kubernetes Secret, which only --runtime kubernetes"
                  + " uses; on the local runtime give "
                  + prefix
                  + "TOKEN_FILE or tokenFile");
        }
        return token.map(Credential.Held::new);
      }
      if (token.isPresent()) {
        throw new IllegalArgumentException(
            "provider of "
                + type
                + ": with --runtime kubernetes the control plane does not hold the provider's"
                + " token (only the session pod's proxy sidecar does, from a Secret); drop "
                + prefix
                + "TOKEN / "
                + prefix
                + "TOKEN_FILE / tokenFile and give tokenSecret: \"NAME/KEY\" (or "
                + prefix
                + "TOKEN_SECRET=NAME/KEY), e.g. berth-provider-"
                + type
                + "/token");
      }
      try {
        return tokenSecret.map(PodAgent.SecretRef::parse).map(Credential.InSecret::new);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("provider of " + type + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * A pod's provider address ranges, which its NetworkPolicy names instead of what the URL's host
   * resolves to: the variable's comma-separated list, else the file's array.
   */
  private static List<String> readEgressCidrs(
      String type, JsonNode entry, @Nullable String variable) {
    List<String> cidrs = new ArrayList<>();
    if (variable != null && !variable.isBlank()) {
      for (String cidr : variable.split(",")) {
        cidrs.add(cidr.strip());
      }
    } else if (entry.get("egressCidrs") != null) {
      JsonNode node = entry.get("egressCidrs");
      if (!node.isArray()) {
        throw new IllegalArgumentException(
            "provider of " + type + ": egressCidrs must be a JSON array of CIDRs, was " + node);
      }
      for (JsonNode cidr : node) {
        cidrs.add(cidr.isString() ? cidr.asString() : cidr.toString());
      }
    }
    try {
      return dev.berth.kubernetes.runtime.EgressCidrs.check(cidrs);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("provider of " + type + ": " + e.getMessage(), e);
    }
  }

  private static String checkDefaultModel(String type, String model) {
    if (model.equals(AgentModel.PLATFORM_DEFAULT_NAME)) {
      throw new IllegalArgumentException(
          "provider of "
              + type
              + ": the default model must be a concrete model, or left out for the CLI's own;"
              + " \"platform-default\" is reserved");
    }
    try {
      return new AgentModel(model).value();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("provider of " + type + ": " + e.getMessage(), e);
    }
  }

  private static List<String> checkModels(String type, JsonNode node) {
    if (!node.isArray()) {
      throw new IllegalArgumentException(
          "provider of " + type + ": models must be a JSON array of model names, was " + node);
    }
    List<String> models = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (JsonNode item : node) {
      if (!item.isString()) {
        throw new IllegalArgumentException(
            "provider of " + type + ": models must hold strings, found " + item);
      }
      String model = checkDefaultModel(type, item.asString());
      if (!seen.add(model)) {
        throw new IllegalArgumentException(
            "provider of " + type + ": model " + model + " is listed twice");
      }
      models.add(model);
    }
    return List.copyOf(models);
  }

  private static JsonNode readFile(Path file) {
    try {
      JsonNode node = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
      if (!node.isObject()) {
        throw new IllegalArgumentException(
            "providers file " + file + " must hold a JSON object keyed by agent type");
      }
      return node;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the providers file " + file, e);
    }
  }

  private static String readToken(String type, Path file) {
    try {
      String token = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (token.isEmpty() || token.contains("\n") || token.contains("\r")) {
        throw new IllegalArgumentException(
            "provider of " + type + ": the token file " + file + " must hold one non-empty line");
      }
      return token;
    } catch (IOException e) {
      throw new UncheckedIOException("provider of " + type + ": cannot read " + file, e);
    }
  }

  /** A variable's {@code true} or {@code false}. */
  private static boolean variableFlag(String variable, String value) {
    return switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              variable + " must be true or false, was \"" + value + "\"");
    };
  }

  /** A providers file's {@code "shared": true|false}. */
  private static boolean fileFlag(String type, JsonNode value) {
    if (!value.isBoolean()) {
      throw new IllegalArgumentException(
          "providers file: " + type + ".shared must be true or false, was " + value);
    }
    return value.asBoolean();
  }

  private static Optional<String> text(JsonNode entry, String key) {
    JsonNode value = entry.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!value.isString() || value.asString().isBlank()) {
      throw new IllegalArgumentException(
          "providers file: " + key + " must be a non-empty string, was " + value);
    }
    return Optional.of(value.asString());
  }

  private static Optional<String> first(@Nullable String variable, Optional<String> fromFile) {
    return Optional.ofNullable(variable).filter(v -> !v.isBlank()).or(() -> fromFile);
  }

  private static Optional<Path> onPath(String command, String path) {
    for (String dir : path.split(":")) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, command);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate.toAbsolutePath());
      }
    }
    return Optional.empty();
  }

  private static void requireExecutable(String type, Path cli) {
    if (!Files.isExecutable(cli)) {
      throw new IllegalArgumentException(
          "the CLI of " + type + " (" + cli + ") is not an executable file");
    }
  }

  /** The command a type's CLI usually goes by; MiniMax Code runs Claude Code's by default. */
  private static String defaultCli(String type) {
    return switch (type) {
      case "codex" -> "codex";
      default -> "claude";
    };
  }

  private static String envPrefix(String type) {
    return "BERTH_PROVIDER_" + type.toUpperCase(Locale.ROOT).replace('-', '_') + "_";
  }

  private static List<String> names() {
    return WorkloadCatalog.AGENT_TYPES.stream().map(WorkloadType::value).sorted().toList();
  }
}
