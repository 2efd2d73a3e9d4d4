package dev.berth.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Request bodies fuzzed from the schemas of openapi.yaml, sent to every route that takes one, as
 * tenant B on its own session (the admin on the admin routes, B's runtime's key on the gateway): a
 * body the schema refuses is a 4xx problem+json with a stable reason, never a 5xx, and every answer
 * comes within {@link TwoTenants#REQUEST_TIMEOUT}. Seeded: the seed is printed, and {@code
 * -Dberth.seed=N} replays a run; {@code -Dberth.sweep=full} sends many more.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(TwoTenants.Shared.class)
class RequestFuzzTest {

  static final boolean FULL = "full".equals(System.getProperty("berth.sweep"));
  private static final int REQUESTS = FULL ? 3000 : 150;
  private static final Duration BUDGET = FULL ? Duration.ofMinutes(10) : Duration.ofSeconds(20);
  private static final String[] CONTENT_TYPES = {
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=zz",
    "application/xml",
    "application/json; charset=iso-8859-1",
    ""
  };

  /** Routes whose empty body is a valid request that changes B's session: never sent empty. */
  private static final List<String> EMPTY_CHANGES =
      List.of("/snapshot", "/switch", "/recover", "/plugins/refresh");

  private TwoTenants t;

  /** One route that takes a body, and who calls it. */
  private record Target(String method, String path, JsonNode schema, boolean required) {}

  @BeforeAll
  void target(TwoTenants target) {
    t = target;
  }

  static long seed() {
    Long given = Long.getLong("berth.seed");
    return given != null ? given : System.nanoTime();
  }

  @Test
  void fuzzedBodiesAreRefusedWithA4xxProblemAndNeverA5xxOrAHang() {
    long seed = seed();
    System.out.println(
        "request body fuzz: seed " + seed + " (re-run with -Dberth.seed=" + seed + ")");
    JsonNode spec = OpenApiSpec.tree(OpenApiSpec.load().yaml());
    BodyMutations mutations = new BodyMutations(spec);
    List<Target> targets = targets(spec);
    assertThat(targets).as("routes of openapi.yaml with a request body").hasSizeGreaterThan(10);
    SplittableRandom random = new SplittableRandom(seed);
    List<String> failures = new ArrayList<>();
    long deadline = System.nanoTime() + BUDGET.toNanos();
    int sent = 0;
    for (; sent < REQUESTS && System.nanoTime() < deadline; sent++) {
      Target target = targets.get(random.nextInt(targets.size()));
      ObjectNode baseline = mutations.baseline(target.schema());
      BodyMutations.Mutation m = mutations.mutate(baseline, target.required(), random);
      if (m.body().length == 0 && EMPTY_CHANGES.stream().anyMatch(target.path()::endsWith)) {
        continue;
      }
      String contentType = CONTENT_TYPES[random.nextInt(CONTENT_TYPES.length)];
      String what =
          "#"
              + sent
              + " "
              + target.method()
              + " "
              + target.path()
              + " with "
              + m.name()
              + " as '"
              + contentType
              + "'";
      HttpResponse<String> answer;
      try {
        answer = t.call(request(target, m.body(), contentType));
      } catch (AssertionError failed) {
        // A body over the limit is refused before it is read: the 413 goes out and the connection
        // is closed while the client still sends, and the client may see the reset instead.
        if (!(m.body().length > limitOf(target)
            && failed.getCause() instanceof java.io.IOException)) {
          failures.add(what + ": " + failed.getMessage());
        }
        continue;
      }
      problem(answer, m.mustRefuse()).ifPresent(p -> failures.add(what + ": " + p));
    }
    System.out.println(
        "request body fuzz: " + sent + " requests, " + failures.size() + " failures");

    assertThat(failures).as("seed %s: answers that were not a 4xx problem", seed).isEmpty();
  }

  private static int limitOf(Target target) {
    return target.path().startsWith("/gateway/")
        ? GatewayRoutes.MAX_BODY_BYTES
        : StrictJson.MAX_BODY_BYTES;
  }

  /** What is wrong with {@code answer}, if anything. */
  static java.util.Optional<String> problem(HttpResponse<String> answer, boolean mustRefuse) {
    int status = answer.statusCode();
    String body =
        answer.body().length() > 300 ? answer.body().substring(0, 300) + "…" : answer.body();
    if (status >= 500) {
      return java.util.Optional.of("answered " + status + " " + body);
    }
    if (mustRefuse && status < 400) {
      return java.util.Optional.of("accepted (" + status + ") " + body);
    }
    if (status >= 400) {
      String type = answer.headers().firstValue("Content-Type").orElse("");
      String reason = IsolationProbe.reason(answer);
      if (!type.startsWith("application/problem+json") || !reason.matches("[A-Z][A-Z_]+")) {
        return java.util.Optional.of(
            "refused " + status + " without a problem and a reason: " + type + " " + body);
      }
    }
    return java.util.Optional.empty();
  }

  private HttpRequest request(Target target, byte[] body, String contentType) {
    String path =
        target
            .path()
            .replace("{id}", t.sessionB)
            .replace("{eid}", "x-" + "0".repeat(24))
            .replace("{approvalId}", t.sessionB + ":" + "b2".repeat(16))
            .replace("{tenant}", "fuzzed");
    HttpRequest.Builder request =
        HttpRequest.newBuilder(t.uri(path))
            .timeout(TwoTenants.REQUEST_TIMEOUT)
            .method(target.method(), HttpRequest.BodyPublishers.ofByteArray(body));
    if (path.startsWith("/gateway/")) {
      request.header("x-api-key", t.gatewayKeyB);
    } else {
      request.header(
          "Authorization", "Bearer " + (path.contains("/admin/") ? TwoTenants.ADMIN : t.tokenB));
    }
    if (!contentType.isEmpty()) {
      request.header("Content-Type", contentType);
    }
    return request.build();
  }

  private static List<Target> targets(JsonNode spec) {
    List<Target> targets = new ArrayList<>();
    for (Map.Entry<String, JsonNode> path : spec.path("paths").properties()) {
      for (Map.Entry<String, JsonNode> operation : path.getValue().properties()) {
        JsonNode body = operation.getValue().path("requestBody");
        @Nullable JsonNode schema = body.path("content").path("application/json").get("schema");
        if (schema != null) {
          targets.add(
              new Target(
                  operation.getKey().toUpperCase(java.util.Locale.ROOT),
                  path.getKey(),
                  schema,
                  body.path("required").asBoolean(false)));
        }
      }
    }
    return targets;
  }
}
