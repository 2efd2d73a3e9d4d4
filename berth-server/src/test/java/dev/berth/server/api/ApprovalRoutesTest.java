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
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The approval routes and the gateway routes over real HTTP: a real server in this JVM, its real
 * node and a shell session per test (approvals do not care what the session runs). The proxy's side
 * is played by the test, with the key the server derives for the session's runtime.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApprovalRoutesTest {

  private static final String ADMIN = "approval-admin-token-" + "a".repeat(32);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String DIGEST = "sha256:" + "ab".repeat(32);
  private static final AtomicLong REQUESTS = new AtomicLong();

  @TempDir static Path dataDir;
  private BerthServer server;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private String acme;
  private String other;

  @BeforeAll
  void startServerAndTenants() {
    server =
        new BerthServer(
                new ServerConfig("127.0.0.1", 0, dataDir).withAdminToken(Optional.of(ADMIN)))
            .start();
    acme = tenant("acme");
    other = tenant("other");
  }

  @AfterAll
  void stopServerAndNode() throws Exception {
    server.close();
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

  @Test
  void aProxyRequestCreatesAPendingApprovalThatTheSameRequestFindsAndOtherArgumentsConflict()
      throws Exception {
    JsonNode session = session(acme);
    String id = approvalId(session);

    HttpResponse<String> created = gatewayPost(id, DIGEST, keyOf(session));
    HttpResponse<String> again = gatewayPost(id, DIGEST, keyOf(session));
    HttpResponse<String> conflict = gatewayPost(id, "sha256:" + "cd".repeat(32), keyOf(session));

    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(JSON.readTree(created.body()).path("status").asString()).isEqualTo("PENDING");
    assertThat(JSON.readTree(created.body()).path("id").asString()).isEqualTo(id);
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(conflict.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(conflict.body()).path("reason").asString()).isEqualTo("CONFLICT");
    JsonNode status = JSON.readTree(gatewayGet(id, keyOf(session)).body());
    assertThat(status.path("status").asString()).isEqualTo("PENDING");
    JsonNode listed = get("/sessions/" + sid(session) + "/approvals?state=pending", acme);
    assertThat(listed.path("items")).hasSize(1);
    JsonNode approval = listed.path("items").get(0);
    assertThat(approval.path("tool").asString()).isEqualTo("WebFetch");
    assertThat(approval.path("arguments").asString())
        .isEqualTo("{\"url\":\"https://example.com\"}");
    assertThat(approval.path("requester").asString()).isEqualTo("acme");
    assertThat(approval.path("state").asString()).isEqualTo("pending");
    assertThat(get("/sessions/" + sid(session), acme).path("pendingApprovals").asInt())
        .isEqualTo(1);
  }

  @Test
  void theGatewayRefusesAMissingKeyAndAnotherSessionsKeyWithoutSayingAnything() throws Exception {
    JsonNode session = session(acme);
    JsonNode another = session(acme);
    String id = approvalId(session);
    gatewayPost(id, DIGEST, keyOf(session));

    HttpResponse<String> noKey = gatewayPost(id, DIGEST, null);
    HttpResponse<String> wrongKey = gatewayPost(approvalId(session), DIGEST, keyOf(another));
    HttpResponse<String> readWithWrongKey = gatewayGet(id, keyOf(another));
    HttpResponse<String> unknownSession =
        gatewayGet("0".repeat(32) + ":" + "1".repeat(32), keyOf(session));
    HttpResponse<String> withBearer =
        http.send(
            HttpRequest.newBuilder(uri("/gateway/api/requests/" + id))
                .header("Authorization", "Bearer " + ADMIN)
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(noKey.statusCode()).isEqualTo(401);
    assertThat(wrongKey.statusCode()).isEqualTo(403);
    assertThat(readWithWrongKey.statusCode()).isEqualTo(403);
    assertThat(unknownSession.statusCode()).isEqualTo(403);
    assertThat(withBearer.statusCode()).as("a bearer token is no gateway key").isEqualTo(401);
    for (HttpResponse<String> refused : java.util.List.of(wrongKey, readWithWrongKey)) {
      assertThat(refused.body()).doesNotContain("PENDING").doesNotContain("WebFetch");
    }
    assertThat(get("/sessions/" + sid(session), acme).path("pendingApprovals").asInt())
        .as("the refused request created nothing")
        .isEqualTo(1);
  }

  @Test
  void aTenantDecidesItsOwnSessionsApprovalOnceAuditedAndAnotherTenantSeesNothing()
      throws Exception {
    JsonNode session = session(acme);
    String id = approvalId(session);
    gatewayPost(id, DIGEST, keyOf(session));
    String approvals = "/sessions/" + sid(session) + "/approvals";

    HttpResponse<String> othersList = send("GET", approvals, other, null);
    HttpResponse<String> othersDecision =
        send("POST", approvals + "/" + id, other, "{\"decision\":\"approve\"}");
    HttpResponse<String> approved =
        send("POST", approvals + "/" + id, acme, "{\"decision\":\"approve\",\"reason\":\"fine\"}");
    HttpResponse<String> twice =
        send("POST", approvals + "/" + id, acme, "{\"decision\":\"reject\"}");
    HttpResponse<String> unknown =
        send(
            "POST",
            approvals + "/" + sid(session) + ":" + "f".repeat(32),
            acme,
            "{\"decision\":\"reject\"}");
    HttpResponse<String> badBody =
        send("POST", approvals + "/" + id, acme, "{\"decision\":\"ok\"}");

    assertThat(othersList.statusCode()).isEqualTo(404);
    assertThat(othersDecision.statusCode()).isEqualTo(404);
    assertThat(approved.statusCode()).isEqualTo(200);
    JsonNode decided = JSON.readTree(approved.body());
    assertThat(decided.path("state").asString()).isEqualTo("approved");
    assertThat(decided.path("decidedBy").asString()).isEqualTo("tenant:acme");
    assertThat(decided.path("reason").asString()).isEqualTo("fine");
    assertThat(decided.has("decidedAt")).isTrue();
    assertThat(twice.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(twice.body()).path("reason").asString()).isEqualTo("APPROVAL_DECIDED");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(unknown.body()).path("reason").asString())
        .isEqualTo("APPROVAL_NOT_FOUND");
    assertThat(badBody.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(gatewayGet(id, keyOf(session)).body()).path("status").asString())
        .isEqualTo("APPROVED");
    assertThat(get("/sessions/" + sid(session), acme).path("pendingApprovals").asInt()).isZero();
    JsonNode audit = get("/admin/audit?session=" + sid(session), acme).path("events");
    assertThat(audit.values())
        .anySatisfy(
            e -> {
              assertThat(e.path("type").asString()).isEqualTo("approval.approved");
              assertThat(e.path("actor").asString()).isEqualTo("tenant:acme");
              assertThat(e.path("detail").asString()).contains(id);
            });
  }

  @Test
  void aSuspendAndADeleteCancelTheSessionsPendingApprovalsFirst() throws Exception {
    JsonNode suspended = session(acme);
    String beforeSuspend = approvalId(suspended);
    gatewayPost(beforeSuspend, DIGEST, keyOf(suspended));
    String suspendKey = keyOf(suspended);
    JsonNode deleted = session(acme);
    String beforeDelete = approvalId(deleted);
    gatewayPost(beforeDelete, DIGEST, keyOf(deleted));

    HttpResponse<String> snapshot =
        send("POST", "/sessions/" + sid(suspended) + "/snapshot", acme, null);
    HttpResponse<String> delete = send("DELETE", "/sessions/" + sid(deleted), acme, null);

    assertThat(snapshot.statusCode()).isEqualTo(200);
    assertThat(delete.statusCode()).isIn(202, 204);
    JsonNode cancelled =
        get("/sessions/" + sid(suspended) + "/approvals", acme).path("items").get(0);
    assertThat(cancelled.path("state").asString()).isEqualTo("cancelled");
    assertThat(cancelled.path("reason").asString()).isEqualTo("the session is suspending");
    assertThat(cancelled.path("decidedBy").asString()).isEqualTo("berth");
    assertThat(gatewayGet(beforeSuspend, suspendKey).statusCode())
        .as("the runtime the key was made for is gone with the suspend")
        .isEqualTo(403);
    JsonNode audit = get("/admin/audit?session=" + sid(deleted), ADMIN).path("events");
    assertThat(audit.values())
        .anySatisfy(
            e -> {
              assertThat(e.path("type").asString()).isEqualTo("approval.cancelled");
              assertThat(e.path("actor").asString()).isEqualTo("berth");
              assertThat(e.path("detail").asString())
                  .contains(beforeDelete)
                  .contains("the session is being deleted");
            });
  }

  @Test
  void theProxyWithdrawsACallItGaveUpOnAndNobodyCanApproveItAfter() throws Exception {
    JsonNode session = session(acme);
    String id = approvalId(session);
    gatewayPost(id, DIGEST, keyOf(session));

    HttpResponse<String> withdrawn = gatewayDelete(id, "no decision within 600 s", keyOf(session));

    assertThat(withdrawn.statusCode()).as(withdrawn.body()).isEqualTo(200);
    assertThat(JSON.readTree(withdrawn.body()).path("status").asString()).isEqualTo("CANCELLED");
    JsonNode stored = get("/sessions/" + sid(session) + "/approvals", acme).path("items").get(0);
    assertThat(stored.path("state").asString()).isEqualTo("cancelled");
    assertThat(stored.path("decidedBy").asString()).isEqualTo("proxy");
    assertThat(stored.path("reason").asString())
        .isEqualTo("the proxy stopped waiting: no decision within 600 s");
    assertThat(get("/sessions/" + sid(session), acme).path("pendingApprovals").asInt()).isZero();
    HttpResponse<String> late =
        send(
            "POST",
            "/sessions/" + sid(session) + "/approvals/" + id,
            acme,
            "{\"decision\":\"approve\"}");
    assertThat(late.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(late.body()).path("reason").asString()).isEqualTo("APPROVAL_DECIDED");
    assertThat(gatewayDelete(id, "again", keyOf(session)).statusCode())
        .as("idempotent")
        .isEqualTo(200);
  }

  @Test
  void aWithdrawAfterADecisionAnswersThatDecisionAndAnotherSessionsKeyIsRefused() throws Exception {
    JsonNode session = session(acme);
    JsonNode another = session(acme);
    String id = approvalId(session);
    gatewayPost(id, DIGEST, keyOf(session));
    post("/sessions/" + sid(session) + "/approvals/" + id, acme, "{\"decision\":\"approve\"}");

    HttpResponse<String> wrongKey = gatewayDelete(id, "gone", keyOf(another));
    HttpResponse<String> withdrawn = gatewayDelete(id, "the client went away", keyOf(session));
    HttpResponse<String> unknown =
        gatewayDelete(sid(session) + ":" + "e".repeat(32), "gone", keyOf(session));

    assertThat(wrongKey.statusCode()).isEqualTo(403);
    assertThat(withdrawn.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(withdrawn.body()).path("status").asString()).isEqualTo("APPROVED");
    assertThat(unknown.statusCode()).isEqualTo(404);
  }

  @Test
  void anApprovalExpiresAGraceAfterTheHoldItsProxySays() throws Exception {
    JsonNode session = session(acme);
    String id = approvalId(session);
    String body =
        JSON.writeValueAsString(
            Map.of(
                "id",
                id,
                "tool",
                "WebFetch",
                "argumentsDigest",
                DIGEST,
                "arguments",
                Map.of("url", "https://example.com"),
                "holdSeconds",
                60));
    java.time.Instant before = java.time.Instant.now();
    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(uri("/gateway/api/requests"))
                .timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json")
                .header("x-api-key", keyOf(session))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    java.time.Instant after = java.time.Instant.now();

    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonNode stored = get("/sessions/" + sid(session) + "/approvals", acme).path("items").get(0);
    java.time.Instant expiresAt = java.time.Instant.parse(stored.path("expiresAt").asString());
    assertThat(expiresAt)
        .isBetween(before.plusSeconds(65).minusMillis(1), after.plusSeconds(65).plusMillis(1));

    HttpResponse<String> refused =
        http.send(
            HttpRequest.newBuilder(uri("/gateway/api/requests"))
                .timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json")
                .header("x-api-key", keyOf(session))
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        body.replace("\"holdSeconds\":60", "\"holdSeconds\":\"ten\"")
                            .replace(id, approvalId(session))))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
    assertThat(refused.body()).contains("holdSeconds", "was \\\"ten\\\"");
  }

  // ---- helpers ----------------------------------------------------------------------------

  private String tenant(String name) {
    JsonNode issued =
        post(
            "/admin/tokens",
            ADMIN,
            "{\"tenant\":\"" + name + "\",\"workloadTypes\":[\"shell\"],\"maxSessions\":20}");
    return issued.path("token").asString();
  }

  private JsonNode session(String token) {
    return post("/sessions", token, "{\"name\":\"approvals\"}");
  }

  private static String sid(JsonNode session) {
    return session.path("id").asString();
  }

  private static String approvalId(JsonNode session) {
    return sid(session) + ":" + HexFormat.of().toHexDigits(REQUESTS.incrementAndGet()).repeat(2);
  }

  /** The key the server gave the session's proxy: derived from the data directory's key. */
  private String keyOf(JsonNode session) throws Exception {
    byte[] key =
        Base64.getDecoder()
            .decode(
                Files.readString(dataDir.resolve("approval-gateway.key"), StandardCharsets.UTF_8)
                    .strip());
    return new GatewayKeys(key).keyFor(session.path("pod").asString());
  }

  private HttpResponse<String> gatewayPost(String id, String digest, @Nullable String key)
      throws Exception {
    String body =
        JSON.writeValueAsString(
            Map.of(
                "id",
                id,
                "tool",
                "WebFetch",
                "argumentsDigest",
                digest,
                "arguments",
                Map.of("url", "https://example.com")));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri("/gateway/api/requests"))
            .timeout(Duration.ofSeconds(30))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header("x-api-key", key);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> gatewayGet(String id, String key) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri("/gateway/api/requests/" + id))
            .timeout(Duration.ofSeconds(30))
            .header("x-api-key", key)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> gatewayDelete(String id, String reason, String key)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(
                uri(
                    "/gateway/api/requests/"
                        + id
                        + "?reason="
                        + java.net.URLEncoder.encode(reason, StandardCharsets.UTF_8)))
            .timeout(Duration.ofSeconds(30))
            .header("x-api-key", key)
            .DELETE()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode get(String path, String token) throws Exception {
    HttpResponse<String> answer = send("GET", path, token, null);
    assertThat(answer.statusCode()).as("GET %s: %s", path, answer.body()).isEqualTo(200);
    return JSON.readTree(answer.body());
  }

  private JsonNode post(String path, String token, String body) {
    try {
      HttpResponse<String> answer = send("POST", path, token, body);
      assertThat(answer.statusCode()).as("POST %s: %s", path, answer.body()).isBetween(200, 201);
      return JSON.readTree(answer.body());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private HttpResponse<String> send(String method, String path, String token, @Nullable String body)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri("/api/v1" + path))
            .timeout(Duration.ofSeconds(120))
            .header("Authorization", "Bearer " + token)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }
}
