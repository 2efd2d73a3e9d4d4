package dev.berth.server;

import dev.berth.core.session.AgentModel;
import dev.berth.kubernetes.runtime.PodAgent;
import dev.berth.server.AgentCatalog.Credential;
import dev.berth.server.AgentCatalog.Placement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An agent type's settings, from its entry in the providers file and its {@code
 * BERTH_PROVIDER_<TYPE>_*} variables (which win), checked as they are read: the catalog ({@link
 * AgentCatalog}) turns them into the type's profile.
 *
 * <p>Decisions: the token is read once, here, from {@code _TOKEN} or the token file, never from the
 * providers file itself; a setting that breaks its rule throws, naming the type, the setting, the
 * rule and the value, so that the server stops at start rather than failing the first session.
 * Which credential a type ends up with depends on the placement ({@link #provider}): held here for
 * the local node, a Secret reference for pods.
 */
record AgentSettings(
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

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The keys of a type's entry in the providers file ({@code approval} is ApprovalSettings'). */
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

  private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9-]{0,63}");

  /**
   * The providers file ({@code --providers FILE}): a JSON object keyed by agent type; an empty one
   * when none is given.
   */
  static JsonNode providersFile(Optional<Path> file) {
    return file.map(AgentSettings::readFile).orElse(JSON.createObjectNode());
  }

  /** {@code type}'s settings from its file {@code entry} and the variables in {@code env}. */
  static AgentSettings of(String type, JsonNode entry, Map<String, String> env) {
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
    Optional<String> authHeader = first(env.get(prefix + "AUTH_HEADER"), text(entry, "authHeader"));
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
    return new AgentSettings(
        url, token, tokenSecret, ca, api, authHeader, model, models, shared, egressCidrs);
  }

  @Override
  public String toString() {
    return "AgentSettings[" + url + ", " + api + ", " + defaultModel + "]"; // never the token
  }

  /** The prefix of {@code type}'s variables: {@code BERTH_PROVIDER_<TYPE>_}. */
  static String envPrefix(String type) {
    return "BERTH_PROVIDER_" + type.toUpperCase(Locale.ROOT).replace('-', '_') + "_";
  }

  /** {@code type}'s provider on {@code placement}; empty without a URL or a credential. */
  Optional<AgentCatalog.Provider> provider(String type, Placement placement) {
    Optional<Credential> credential = credential(type, placement);
    if (url.isEmpty() || credential.isEmpty()) {
      return Optional.empty();
    }
    URI parsed = checkedUrl(type, url.get());
    if (!api.equals("anthropic") && !api.equals("openai")) {
      throw new IllegalArgumentException(
          "provider of " + type + ": api must be anthropic or openai, was " + api);
    }
    String header = checkedHeader(type);
    checkCaFile(type, placement);
    return Optional.of(
        new AgentCatalog.Provider(
            parsed, credential.get(), caFile.map(Path::toAbsolutePath), api, header, egressCidrs));
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

  private static URI checkedUrl(String type, String url) {
    URI parsed = URI.create(url);
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
              + url);
    }
    return parsed;
  }

  private String checkedHeader(String type) {
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
    return header;
  }

  private void checkCaFile(String type, Placement placement) {
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
  }

  /**
   * The token where the placement needs it: here for the local node; in a Secret for a pod, where a
   * token the control plane holds would be one copy too many.
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
}
