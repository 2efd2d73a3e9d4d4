package dev.berth.server;

import dev.berth.core.access.WorkloadCatalog;
import dev.berth.core.session.AgentModel;
import dev.berth.core.session.PluginName;
import dev.berth.core.session.WorkloadType;
import dev.berth.kubernetes.runtime.PodAgent;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

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
 *
 * <p>Reading and checking a type's settings is {@link AgentSettings}'s; finding its CLI, {@link
 * AgentClis}'.
 */
public final class AgentCatalog implements WorkloadCatalog {

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
    JsonNode file = AgentSettings.providersFile(providersFile);
    for (String key : file.propertyNames()) {
      if (!WorkloadCatalog.isAgent(new WorkloadType(key))) {
        throw new IllegalArgumentException(
            "providers file: \"" + key + "\" is not an agent type; use one of " + names());
      }
    }
    Map<WorkloadType, Profile> profiles = new LinkedHashMap<>();
    for (String name : names()) {
      WorkloadType type = new WorkloadType(name);
      Optional<Path> cli = AgentClis.find(name, clis, env, placement);
      AgentSettings settings = AgentSettings.of(name, file.path(name), env);
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
              + AgentClis.defaultCli(type.value())
              + " is not on PATH; pass --agent-cli "
              + type.value()
              + "=PATH)");
    }
    if (profile.provider().isEmpty()) {
      String prefix = AgentSettings.envPrefix(type.value());
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

  private static List<String> names() {
    return WorkloadCatalog.AGENT_TYPES.stream().map(WorkloadType::value).sorted().toList();
  }
}
