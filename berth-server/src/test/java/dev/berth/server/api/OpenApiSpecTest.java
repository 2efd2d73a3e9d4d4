package dev.berth.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.protocol.problem.AgentReason;
import dev.berth.server.api.OpenApiSpec.Route;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The OpenAPI description is valid, self-consistent, and in step with {@code docs/api.md} and the
 * body records.
 */
class OpenApiSpecTest {

  private static final Set<String> METHODS =
      Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

  /** A route row of a table in docs/api.md: {@code | `POST /sessions/{id}/read` | …}. */
  private static final Pattern ROUTE_ROW =
      Pattern.compile("^\\|\\s*`(GET|PUT|POST|DELETE|PATCH) (/[^`\\s]*)`\\s*\\|");

  /** A row of the error table in docs/api.md: {@code | 409 | `CONFLICT`, `STALE_INTENT` | …}. */
  private static final Pattern ERROR_ROW = Pattern.compile("^\\|\\s*(\\d{3})\\s*\\|([^|]*)\\|");

  private static final Pattern REASON = Pattern.compile("`([A-Z_]+)`");

  private final OpenApiSpec spec = OpenApiSpec.load();
  private final JsonNode root = OpenApiSpec.tree(spec.yaml());

  private static List<String> apiReference() throws IOException {
    Path doc = Path.of(System.getProperty("basedir", ".")).resolve("../docs/api.md").normalize();
    return Files.readAllLines(doc, StandardCharsets.UTF_8);
  }

  private List<JsonNode> operations() {
    List<JsonNode> ops = new ArrayList<>();
    for (Map.Entry<String, JsonNode> path : root.get("paths").properties()) {
      for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
        if (METHODS.contains(op.getKey())) {
          ops.add(op.getValue());
        }
      }
    }
    return ops;
  }

  private JsonNode resolve(String ref) {
    assertThat(ref).as("a local reference").startsWith("#/");
    JsonNode target = root.at(ref.substring(1));
    assertThat(target.isMissingNode()).as("%s resolves", ref).isFalse();
    return target;
  }

  private static void collectRefs(JsonNode node, List<String> refs) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        if (e.getKey().equals("$ref")) {
          refs.add(e.getValue().asString());
        } else {
          collectRefs(e.getValue(), refs);
        }
      }
    } else if (node.isArray()) {
      for (JsonNode element : node.values()) {
        collectRefs(element, refs);
      }
    }
  }

  @Test
  void isAnOpenApi31DocumentServedExactlyAsShipped() throws IOException {
    assertThat(root.get("openapi").asString()).startsWith("3.1.");
    try (InputStream in = OpenApiSpec.class.getResourceAsStream(OpenApiSpec.RESOURCE)) {
      assertThat(in).isNotNull();
      assertThat(spec.yaml()).isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void everyOperationHasAUniqueOperationId() {
    List<String> ids = new ArrayList<>();
    for (JsonNode op : operations()) {
      assertThat(op.has("operationId")).as("operationId of %s", op.get("summary")).isTrue();
      ids.add(op.get("operationId").asString());
    }
    assertThat(ids).doesNotHaveDuplicates().hasSize(spec.routes().size());
  }

  @Test
  void everyReferenceResolvesWithinTheDocument() {
    List<String> refs = new ArrayList<>();
    collectRefs(root, refs);
    assertThat(refs).hasSizeGreaterThan(50);
    refs.forEach(this::resolve);
  }

  @Test
  void everySecuredOperationDocumentsTheUnauthenticatedAnswer() {
    for (JsonNode op : operations()) {
      JsonNode security = op.get("security");
      boolean open = security != null && security.isArray() && security.isEmpty();
      if (!open) {
        assertThat(op.get("responses").has("401"))
            .as("%s documents 401", op.get("operationId"))
            .isTrue();
      }
    }
  }

  @Test
  void everyRouteOfTheApiReferenceIsDescribedAndTheOtherWayRound() throws IOException {
    Set<Route> documented = new LinkedHashSet<>();
    for (String line : apiReference()) {
      Matcher m = ROUTE_ROW.matcher(line);
      if (m.find()) {
        documented.add(new Route(m.group(1), "/api/v1" + m.group(2)));
      }
    }
    assertThat(documented).as("route rows parsed from docs/api.md").hasSizeGreaterThan(15);

    Set<Route> described =
        spec.routes().stream()
            .filter(r -> r.path().startsWith("/api/v1/"))
            .collect(Collectors.toCollection(LinkedHashSet::new));
    assertThat(described).containsExactlyInAnyOrderElementsOf(documented);
    assertThat(spec.routes()).contains(new Route("GET", "/healthz"), new Route("GET", "/login"));
  }

  @Test
  void everyReasonOfTheApiReferenceIsInTheProblemSchema() throws IOException {
    Set<String> documented = new TreeSet<>();
    for (String line : apiReference()) {
      Matcher row = ERROR_ROW.matcher(line);
      if (row.find()) {
        Matcher reason = REASON.matcher(row.group(2));
        while (reason.find()) {
          documented.add(reason.group(1));
        }
      }
    }
    assertThat(documented).as("reasons parsed from docs/api.md").hasSizeGreaterThan(10);

    Set<String> described = new TreeSet<>();
    resolve("#/components/schemas/Problem/properties/reason/enum")
        .values()
        .forEach(v -> described.add(v.asString()));
    assertThat(described).containsAll(documented);
  }

  /**
   * The API passes an agent's refusal on with the agent's own reason ({@code
   * AgentCommandFailedException}), so every reason the node answers with is one a client may see.
   * The node's reasons are the protocol's {@link AgentReason}, which the agent produces, but for
   * those of the control plane's own rules that a node never raises (it only answers them as the
   * control plane would, should one reach it) and a bare 405 no route of the agent's answers.
   */
  @Test
  void everyReasonTheNodeAnswersWithIsInTheProblemSchema() {
    Set<AgentReason> neverRaisedOnANode =
        EnumSet.of(
            AgentReason.UNKNOWN,
            AgentReason.ALREADY_EXISTS,
            AgentReason.LEASE_LOST,
            AgentReason.ALREADY_RECOVERED,
            AgentReason.NOT_RECOVERABLE,
            AgentReason.RECOVERY_WINDOW_ENDED,
            AgentReason.METHOD_NOT_ALLOWED);
    Set<String> node = new TreeSet<>();
    for (AgentReason reason : EnumSet.complementOf(EnumSet.copyOf(neverRaisedOnANode))) {
      node.add(reason.wireName());
    }
    assertThat(node).as("reasons the node answers with").contains("NOT_AN_AGENT");

    Set<String> described = new TreeSet<>();
    resolve("#/components/schemas/Problem/properties/reason/enum")
        .values()
        .forEach(v -> described.add(v.asString()));
    assertThat(described).containsAll(node);
  }

  /**
   * Each JSON request body is a closed object whose properties are exactly the components of its
   * record in {@code dev.berth.server.api.body} (schema {@code X}, record {@code XBody}).
   */
  @Test
  void requestBodiesAreClosedAndMatchTheirRecords() throws ClassNotFoundException {
    Set<String> bodies = new TreeSet<>();
    for (JsonNode op : operations()) {
      JsonNode body = op.at("/requestBody/content/application~1json/schema/$ref");
      if (body.isMissingNode()) {
        continue;
      }
      String ref = body.asString();
      JsonNode schema = resolve(ref);
      assertThat(
              schema.get("additionalProperties").isBoolean()
                  && !schema.get("additionalProperties").booleanValue())
          .as("%s has additionalProperties: false", ref)
          .isTrue();

      String name = ref.substring(ref.lastIndexOf('/') + 1);
      bodies.add(name);
      Class<?> record = Class.forName("dev.berth.server.api.body." + name + "Body");
      Set<String> components =
          Arrays.stream(record.getRecordComponents())
              .map(RecordComponent::getName)
              .collect(Collectors.toCollection(TreeSet::new));
      Set<String> properties = new TreeSet<>();
      JsonNode props = schema.get("properties");
      if (props != null) {
        props.properties().forEach(p -> properties.add(p.getKey()));
      }
      assertThat(properties).as("properties of %s", ref).isEqualTo(components);
    }
    assertThat(bodies)
        .containsExactlyInAnyOrder(
            "CreateSession",
            "Read",
            "Write",
            "Switch",
            "Snapshot",
            "Recover",
            "CreateExecution",
            "CreateToken",
            "PutTenant",
            "KeepAlive",
            "PluginRefresh",
            "ApprovalDecision");
  }

  @Test
  void routesNormalizeJavalinStylePathParameters() {
    assertThat(new Route("get", "/api/v1/sessions/:id/executions/<eid>/"))
        .isEqualTo(new Route("GET", "/api/v1/sessions/{id}/executions/{eid}"));
    assertThat(OpenApiSpec.normalize("/")).isEqualTo("/");
    assertThat(OpenApiSpec.normalize("/a:b")).isEqualTo("/a:b");
    assertThat(new Route("post", "/api/v1/sessions").toString()).isEqualTo("POST /api/v1/sessions");
  }

  @Test
  void refusesADescriptionWithADuplicateKey() {
    assertThatThrownBy(() -> OpenApiSpec.parse("openapi: 3.1.0\npaths: {}\npaths: {}\n"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not valid YAML");
  }
}
