package dev.berth.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.approval.GatewayKeys;
import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The attack sweeps' target: one real {@link BerthServer} over loopback, its real node, and two
 * tenants. Tenant A ({@code acme}) owns a shell session with an execution, its operations and a
 * pending approval; tenant B ({@code globex}) owns a shell session of its own, which the fuzzers
 * use (so nothing they send can disturb A's). Started once per test JVM and shared by the sweep
 * classes ({@link Shared}): a node and two sessions cost seconds, the sweeps' budget is a minute.
 */
final class TwoTenants implements AutoCloseable {

  static final String ADMIN = "attack-sweep-admin-token-" + "a".repeat(32);
  static final String TENANT_A = "acme";
  static final String TENANT_B = "globex";

  /** Every request of the sweeps gives up after this: a server that hangs fails the test. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Setting the tenants up starts the node and two sessions: slow on a busy machine, not hung. */
  private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(120);

  private volatile Duration timeout = SETUP_TIMEOUT;
  private final Path dataDir;
  private final BerthServer server;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final String tokenA;
  final String tokenB;
  final String tokenIdA;

  /** A's resources: its session, one of its executions, operations and approvals. */
  final String sessionA;

  final String executionA;
  final String operationA;
  final String approvalA;
  final String podA;
  final long intentVersionA;
  final String stateA;
  final String lastAccessA;

  /** B's own session, and the gateway key of its runtime. */
  final String sessionB;

  final String gatewayKeyB;

  /** Starts the server and sets the tenants up; a set-up that fails leaves no server or node. */
  static TwoTenants start(Path dataDir) throws Exception {
    BerthServer server =
        new BerthServer(
                new ServerConfig("127.0.0.1", 0, dataDir).withAdminToken(Optional.of(ADMIN)))
            .start();
    try {
      return new TwoTenants(dataDir, server);
    } catch (Exception | AssertionError e) {
      server.close();
      stopNode(dataDir);
      throw e;
    }
  }

  private TwoTenants(Path dataDir, BerthServer server) throws Exception {
    this.dataDir = dataDir;
    this.server = server;
    JsonNode issuedA = tenant(TENANT_A);
    tokenA = issuedA.path("token").asString();
    tokenIdA = issuedA.path("id").asString();
    tokenB = tenant(TENANT_B).path("token").asString();
    JsonNode a = ok(send("POST", "/api/v1/sessions", tokenA, "{\"name\":\"a-private\"}"));
    sessionA = a.path("id").asString();
    podA = a.path("pod").asString();
    executionA =
        ok(send(
                "POST",
                "/api/v1/sessions/" + sessionA + "/executions",
                tokenA,
                "{\"command\":\"true\"}"))
            .path("id")
            .asString();
    operationA =
        ok(send("GET", "/api/v1/sessions/" + sessionA + "/operations", tokenA, null))
            .path("operations")
            .get(0)
            .path("id")
            .asString();
    JsonNode settled = ok(send("GET", "/api/v1/sessions/" + sessionA, tokenA, null));
    intentVersionA = settled.path("intentVersion").asLong();
    stateA = settled.path("state").asString();
    lastAccessA = settled.path("lastAccess").asString();
    approvalA = sessionA + ":" + "a1".repeat(16);
    HttpResponse<String> requested =
        gateway(
            "POST",
            "/gateway/api/requests",
            keyOf(podA),
            "{\"id\":\""
                + approvalA
                + "\",\"tool\":\"WebFetch\",\"argumentsDigest\":\"sha256:"
                + "ab".repeat(32)
                + "\",\"arguments\":{\"url\":\"https://example.com\"}}");
    assertThat(requested.statusCode()).as(requested.body()).isEqualTo(201);
    JsonNode b = ok(send("POST", "/api/v1/sessions", tokenB, "{\"name\":\"b-own\"}"));
    sessionB = b.path("id").asString();
    gatewayKeyB = keyOf(b.path("pod").asString());
    timeout = REQUEST_TIMEOUT;
  }

  /** Everything of A's that B must never see, for the listings' checks. */
  List<String> secretsOfA() {
    return List.of(
        sessionA, executionA, operationA, approvalA, podA, tokenA, tokenIdA, "a-private");
  }

  int port() {
    return server.port();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  /** A request with a bearer token (none when {@code token} is null) and a JSON body or none. */
  HttpResponse<String> send(
      String method, String path, @Nullable String token, @Nullable String body) {
    return send(method, path, token, body, Map.of());
  }

  HttpResponse<String> send(
      String method,
      String path,
      @Nullable String token,
      @Nullable String body,
      Map<String, String> headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(path))
            .timeout(timeout)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    headers.forEach(request::setHeader);
    return call(request.build());
  }

  /** A request as a proxy sends it: the gateway key in {@code x-api-key}, no bearer token. */
  HttpResponse<String> gateway(String method, String path, String key, @Nullable String body) {
    return send(method, path, null, body, Map.of("x-api-key", key));
  }

  /**
   * Sends {@code request} and reads the whole answer within {@link #REQUEST_TIMEOUT} (the client's
   * own timeout stops at the headers; a body that never ends must fail the test too).
   */
  HttpResponse<String> call(HttpRequest request) {
    CompletableFuture<HttpResponse<String>> answer =
        http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    try {
      return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      answer.cancel(true);
      throw new AssertionError(
          request.method() + " " + request.uri() + ": no whole answer within " + timeout, e);
    } catch (ExecutionException e) {
      throw new AssertionError(
          request.method() + " " + request.uri() + " failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  static JsonNode json(HttpResponse<String> answer) {
    return JSON.readTree(answer.body());
  }

  private static JsonNode ok(HttpResponse<String> answer) {
    assertThat(answer.statusCode())
        .as("%s %s: %s", answer.request().method(), answer.request().uri(), answer.body())
        .isBetween(200, 299);
    return json(answer);
  }

  private JsonNode tenant(String name) {
    return ok(
        send(
            "POST",
            "/api/v1/admin/tokens",
            ADMIN,
            "{\"tenant\":\"" + name + "\",\"workloadTypes\":[\"shell\"],\"maxSessions\":20}"));
  }

  /** The gateway key the server gives a runtime's proxy: derived from the data directory's key. */
  private String keyOf(String pod) throws java.io.IOException {
    byte[] key =
        Base64.getDecoder()
            .decode(
                Files.readString(dataDir.resolve("approval-gateway.key"), StandardCharsets.UTF_8)
                    .strip());
    return new GatewayKeys(key).keyFor(pod);
  }

  @Override
  public void close() throws java.io.IOException {
    server.close();
    stopNode(dataDir);
    deleteTree(dataDir);
  }

  /** Stops the node a server of {@code dataDir} started (it outlives its server on purpose). */
  static void stopNode(Path dataDir) throws java.io.IOException {
    Path info = dataDir.resolve("node").resolve("node.json");
    if (Files.exists(info)) {
      long pid = JSON.readTree(Files.readString(info)).path("pid").asLong();
      ProcessHandle.of(pid)
          .ifPresent(
              node -> {
                node.destroy();
                node.onExit().orTimeout(30, TimeUnit.SECONDS).join();
              });
    }
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      // A node's sandbox leftovers may resist; the temporary directory is the OS's to clean.
    }
  }

  /**
   * Gives each sweep class the one {@link TwoTenants} of this test run, started at first need and
   * closed when the run ends (JUnit's root store closes it).
   */
  static final class Shared implements ParameterResolver {
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return parameter.getParameter().getType() == TwoTenants.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      return context
          .getRoot()
          .getStore(ExtensionContext.Namespace.create(TwoTenants.class))
          .getOrComputeIfAbsent(
              TwoTenants.class,
              k -> {
                try {
                  return start(Files.createTempDirectory("berth-sweep"));
                } catch (Exception e) {
                  throw new IllegalStateException("the sweeps' server did not start: " + e, e);
                }
              },
              TwoTenants.class);
    }
  }
}
