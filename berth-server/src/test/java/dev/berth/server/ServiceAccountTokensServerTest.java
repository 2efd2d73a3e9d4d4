package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.kubernetes.identity.ApiServerAuthenticator;
import dev.berth.kubernetes.store.MockApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real server started with {@code --service-account-tokens}, its real node and shells, over real
 * HTTP. The API server it asks is simulated: fabric8's mock server, with {@link
 * ApiServerAuthenticator} answering TokenReviews from tokens this test issues (no Kubernetes API
 * server can run here). The server finds it as a deployed one would find its cluster, through the
 * client's configuration (here the {@code kubernetes.master} system property).
 */
class ServiceAccountTokensServerTest {
  private static final String ADMIN = "service-account-admin-" + "a".repeat(32);
  private static final String BUILDER = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJidWlsZGVyIn0.YnVpbGRlcg";
  private static final String OTHER = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJvdGhlciJ9.b3RoZXI";
  private static final String UNLISTED = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1bmxpc3RlZCJ9.dW5saXN0";
  private static final String FOREIGN = "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJrOHMifQ.Zm9yZWlnbg";
  private static final String LATE = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJsYXRlIn0.bGF0ZQ";
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String[] CLIENT_PROPERTIES = {
    "kubernetes.master", "kubernetes.auth.tryKubeConfig", "kubernetes.auth.tryServiceAccount"
  };

  private static Path work;
  private static final ApiServerAuthenticator cluster = new ApiServerAuthenticator();
  private static MockApiServer api;
  private static BerthServer server;
  private static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws java.io.IOException {
    work = java.nio.file.Files.createTempDirectory("berth-sa-tokens-");
    api = MockApiServer.start(cluster);
    System.setProperty("kubernetes.master", "http://127.0.0.1:" + api.port());
    System.setProperty("kubernetes.auth.tryKubeConfig", "false");
    System.setProperty("kubernetes.auth.tryServiceAccount", "false");
    cluster.issue(BUILDER, "system:serviceaccount:ci:builder", "berth");
    cluster.issue(OTHER, "system:serviceaccount:ci:other", "berth");
    cluster.issue(UNLISTED, "system:serviceaccount:ci:unlisted", "berth");
    cluster.issue(FOREIGN, "system:serviceaccount:ci:builder", "https://kubernetes.default.svc");
    cluster.issue(LATE, "system:serviceaccount:ci:builder", "berth");
    server =
        new BerthServer(
                new ServerConfig("127.0.0.1", 0, work.resolve("data"))
                    .withAdminToken(Optional.of(ADMIN))
                    .withBackends(
                        ServerConfig.Backends.defaults().withServiceAccountTokens("berth")))
            .start();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (server != null) {
        server.close();
      }
      DetachedProcesses.stopAllUnder(work);
    } finally {
      for (String property : CLIENT_PROPERTIES) {
        System.clearProperty(property);
      }
      api.close();
      removeWork();
    }
  }

  /**
   * Removes the data directory with what the node's sessions left in it, as root may (files of the
   * sessions' own uids), trying again while a session's last process may still be writing.
   */
  private static void removeWork() throws Exception {
    for (int attempt = 0; attempt < 5 && java.nio.file.Files.exists(work); attempt++) {
      Process rm = new ProcessBuilder("rm", "-rf", work.toString()).inheritIO().start();
      rm.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
      if (java.nio.file.Files.exists(work)) {
        Thread.sleep(1000);
      }
    }
  }

  @Test
  void aServiceAccountTokenActsForItsTenantWhoseSessionsAloneItSees() throws Exception {
    putTenant("acme", "[\"ci/builder\"]");
    putTenant("beta", "[\"ci/other\"]");

    HttpResponse<String> acmes = send(BUILDER, "POST", "/sessions", "{\"name\":\"ci\"}");
    assertThat(acmes.statusCode()).as(acmes.body()).isEqualTo(201);
    assertThat(JSON.readTree(acmes.body()).path("tenant").asString()).isEqualTo("acme");
    String acmeId = JSON.readTree(acmes.body()).path("id").asString();
    HttpResponse<String> betas = send(OTHER, "POST", "/sessions", "{\"name\":\"b\"}");
    assertThat(betas.statusCode()).as(betas.body()).isEqualTo(201);
    String betaId = JSON.readTree(betas.body()).path("id").asString();

    JsonNode listed = JSON.readTree(send(BUILDER, "GET", "/sessions", "").body());
    assertThat(listed.path("sessions").valueStream().map(s -> s.path("tenant").asString()))
        .containsOnly("acme")
        .isNotEmpty();
    assertThat(send(BUILDER, "GET", "/sessions/" + betaId, "").statusCode()).isEqualTo(404);
    assertThat(send(BUILDER, "DELETE", "/sessions/" + betaId, "").statusCode()).isEqualTo(404);

    // Each tenant deletes its own: nothing is left converging when the server closes.
    assertThat(send(BUILDER, "DELETE", "/sessions/" + acmeId, "").statusCode()).isEqualTo(204);
    assertThat(send(OTHER, "DELETE", "/sessions/" + betaId, "").statusCode()).isEqualTo(204);
  }

  @Test
  void aServiceAccountTokenMayCreateOnlyItsTenantsWorkloadTypes() throws Exception {
    putTenant("gamma", "[\"ci/late\"]");
    cluster.issue(LATE, "system:serviceaccount:ci:late", "berth");

    HttpResponse<String> agent =
        send(LATE, "POST", "/sessions?wait=false", "{\"name\":\"a\",\"workloadType\":\"codex\"}");

    assertThat(agent.statusCode()).as(agent.body()).isEqualTo(403);
    assertThat(reason(agent)).isEqualTo("WORKLOAD_NOT_ALLOWED");
  }

  @Test
  void tokensTheClusterDoesNotVouchForOrNoTenantListsAreUnauthenticated() throws Exception {
    HttpResponse<String> forged =
        send("eyJhbGciOiJub25lIn0.eyJzdWIiOiJtYWxsb3J5In0.Zm9yZ2Vk", "GET", "/sessions", "");
    HttpResponse<String> foreign = send(FOREIGN, "GET", "/sessions", "");
    HttpResponse<String> unlisted = send(UNLISTED, "GET", "/sessions", "");

    assertThat(forged.statusCode()).isEqualTo(401);
    assertThat(reason(forged)).isEqualTo("UNAUTHENTICATED");
    assertThat(foreign.statusCode()).as(foreign.body()).isEqualTo(401);
    assertThat(unlisted.statusCode()).isEqualTo(401);
    assertThat(detail(unlisted))
        .contains("service account ci/unlisted")
        .contains("no tenant lists it");
  }

  @Test
  void aClusterThatRefusesReviewsMakesServiceAccountTokensUnavailableButNotBerthsOwn()
      throws Exception {
    String fresh = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJmcmVzaCJ9.ZnJlc2g";
    cluster.issue(fresh, "system:serviceaccount:ci:builder", "berth");
    cluster.refuseReviews(403);
    try {
      HttpResponse<String> refused = send(fresh, "GET", "/sessions", "");

      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
      assertThat(reason(refused)).isEqualTo("IDENTITY_UNAVAILABLE");
      assertThat(detail(refused)).contains("system:auth-delegator");
      assertThat(send(ADMIN, "GET", "/sessions", "").statusCode()).isEqualTo(200);
    } finally {
      cluster.refuseReviews(0);
    }
  }

  @Test
  void aServiceAccountActsForOneTenantAndTheTenantListShowsWhich() throws Exception {
    putTenant("delta", "[\"ci/delta\"]");

    HttpResponse<String> taken =
        send(
            ADMIN,
            "PUT",
            "/admin/tenants/epsilon",
            "{\"workloadTypes\":[\"shell\"],\"maxSessions\":1,\"serviceAccounts\":[\"ci/delta\"]}");

    assertThat(taken.statusCode()).as(taken.body()).isEqualTo(409);
    assertThat(detail(taken))
        .contains("service account ci/delta of tenant delta")
        .doesNotContain("session state changed");
    JsonNode tenants = JSON.readTree(send(ADMIN, "GET", "/admin/tenants", "").body());
    assertThat(tenants.path("tenants").valueStream())
        .filteredOn(t -> t.path("tenant").asString().equals("delta"))
        .singleElement()
        .satisfies(
            t -> assertThat(t.path("serviceAccounts").get(0).asString()).isEqualTo("ci/delta"));
    assertThat(tenants.path("tenants").valueStream().map(t -> t.path("tenant").asString()))
        .doesNotContain("epsilon");
  }

  @Test
  void aMalformedServiceAccountIsRefusedNamingTheEntry() throws Exception {
    HttpResponse<String> bad =
        send(
            ADMIN,
            "PUT",
            "/admin/tenants/zeta",
            "{\"workloadTypes\":[\"shell\"],\"maxSessions\":1,\"serviceAccounts\":[\"builder\"]}");

    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(detail(bad)).contains("serviceAccounts/0").contains("namespace/name");
  }

  @Test
  void berthsOwnTokensAreNeverSentToTheCluster() throws Exception {
    send(ADMIN, "GET", "/sessions", "");
    send("c".repeat(64), "GET", "/sessions", "");

    List<String> reviewed = new ArrayList<>(cluster.reviewedTokens());
    assertThat(reviewed).doesNotContain(ADMIN, "c".repeat(64));
    assertThat(reviewed).allSatisfy(t -> assertThat(t.split("\\.")).hasSize(3));
  }

  private static void putTenant(String tenant, String accounts) throws Exception {
    HttpResponse<String> put =
        send(
            ADMIN,
            "PUT",
            "/admin/tenants/" + tenant,
            "{\"workloadTypes\":[\"shell\"],\"maxSessions\":2,\"serviceAccounts\":"
                + accounts
                + "}");
    assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
  }

  private static String reason(HttpResponse<String> response) {
    return JSON.readTree(response.body()).path("reason").asString();
  }

  private static String detail(HttpResponse<String> response) {
    return JSON.readTree(response.body()).path("detail").asString();
  }

  private static HttpResponse<String> send(String token, String method, String path, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/v1" + path))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .method(
                method,
                body.isEmpty()
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
