package dev.berth.server.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The OpenAPI 3.1 description of the public API, {@value #RESOURCE} on the classpath. It is served
 * as is at {@code GET /api/v1/openapi.yaml}; its {@linkplain #routes() routes} let a test compare
 * the description with the routes the server registers, in both directions. Immutable and
 * thread-safe.
 */
public final class OpenApiSpec {

  /** Where the description lives on the classpath. */
  public static final String RESOURCE = "/openapi/openapi.yaml";

  private static final List<String> METHODS =
      List.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

  /** {@code :name} (Javalin's old style) or {@code <name>} (Javalin's slash-accepting style). */
  private static final Pattern OTHER_PARAMETER = Pattern.compile("(?<=/)(?::([^/]+)|<([^/>]+)>)");

  private final String yaml;
  private final Set<Route> routes;

  private OpenApiSpec(String yaml, Set<Route> routes) {
    this.yaml = yaml;
    this.routes = routes;
  }

  /**
   * One operation of the API: an HTTP method and a path template.
   *
   * @param method upper case, e.g. {@code GET}
   * @param path from the server's root, with path parameters as {@code {name}}, e.g. {@code
   *     /api/v1/sessions/{id}}
   */
  public record Route(String method, String path) {
    public Route {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(path, "path");
      method = method.toUpperCase(Locale.ROOT);
      path = normalize(path);
    }

    @Override
    public String toString() {
      return method + " " + path;
    }
  }

  /**
   * Reads the description from the classpath.
   *
   * @throws IllegalStateException when it is missing or is not a readable OpenAPI document (a
   *     packaging error)
   */
  public static OpenApiSpec load() {
    try (InputStream in = OpenApiSpec.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  /**
   * Reads a description from its YAML text.
   *
   * @throws IllegalStateException when {@code yaml} is not valid YAML (duplicate keys included) or
   *     has no {@code paths} object
   */
  static OpenApiSpec parse(String yaml) {
    JsonNode root = tree(yaml);
    JsonNode paths = root.get("paths");
    if (paths == null || !paths.isObject()) {
      throw new IllegalStateException("the OpenAPI description has no paths object");
    }
    Set<Route> routes = new LinkedHashSet<>();
    for (Map.Entry<String, JsonNode> path : paths.properties()) {
      for (String method : METHODS) {
        if (path.getValue().has(method)) {
          routes.add(new Route(method, path.getKey()));
        }
      }
    }
    return new OpenApiSpec(yaml, Collections.unmodifiableSet(routes));
  }

  /** The description as a tree, read strictly: a duplicate key is an error. */
  static JsonNode tree(String yaml) {
    YAMLMapper mapper =
        YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    try {
      JsonNode root = mapper.readTree(yaml);
      if (root == null || !root.isObject()) {
        throw new IllegalStateException("the OpenAPI description is not a YAML mapping");
      }
      return root;
    } catch (JacksonException e) {
      throw new IllegalStateException(
          "the OpenAPI description is not valid YAML: " + e.getMessage(), e);
    }
  }

  /** The description's YAML text, byte for byte as shipped. */
  public String yaml() {
    return yaml;
  }

  /** Every operation the description declares, in document order. */
  public Set<Route> routes() {
    return routes;
  }

  /**
   * {@code path} with every path parameter written {@code {name}}: Javalin's {@code :name} and
   * {@code <name>} forms are rewritten, {@code {name}} is kept, and a trailing slash (but not the
   * root's) is dropped.
   */
  public static String normalize(String path) {
    Matcher m = OTHER_PARAMETER.matcher(path);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = m.group(1) != null ? m.group(1) : m.group(2);
      m.appendReplacement(out, Matcher.quoteReplacement("{" + name + "}"));
    }
    m.appendTail(out);
    if (out.length() > 1 && out.charAt(out.length() - 1) == '/') {
      out.setLength(out.length() - 1);
    }
    return out.toString();
  }
}
