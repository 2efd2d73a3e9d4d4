package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.archive.s3.S3ArchiveSettings;
import dev.berth.archive.s3.S3ArchiveUri;
import dev.berth.archive.s3.S3TestServer;
import dev.berth.core.error.InvalidValueException;
import dev.berth.kubernetes.store.ClaimRefusedException;
import dev.berth.kubernetes.store.MockApiServer;
import dev.berth.protocol.node.NodeInfo;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real server on {@code --store kubernetes://berth}, its real local node and shells, over real
 * HTTP, with S3 archives (S3Mock, in this JVM). The API server is simulated: fabric8's mock server
 * in CRUD mode, which the server finds as a deployed one finds its cluster, through the client's
 * configuration (here the {@code kubernetes.master} system property).
 */
class KubernetesStoreServerTest {
  private static final String TOKEN = "kubernetes-admin-token-" + "k".repeat(32);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String[] CLIENT_PROPERTIES = {
    "kubernetes.master", "kubernetes.auth.tryKubeConfig", "kubernetes.auth.tryServiceAccount"
  };

  private static MockApiServer api;

  @TempDir Path work;
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<Path> dataDirs = new ArrayList<>();

  @BeforeAll
  static void startApiServer() {
    api = MockApiServer.start();
    System.setProperty("kubernetes.master", "http://127.0.0.1:" + api.port());
    System.setProperty("kubernetes.auth.tryKubeConfig", "false");
    System.setProperty("kubernetes.auth.tryServiceAccount", "false");
  }

  @AfterAll
  static void stopApiServer() {
    for (String property : CLIENT_PROPERTIES) {
      System.clearProperty(property);
    }
    api.close();
  }

  @AfterEach
  void stopNodes() {
    for (Path dataDir : dataDirs) {
      NodeInfo.read(dataDir.resolve("node"))
          .flatMap(info -> ProcessHandle.of(info.pid()))
          .ifPresent(
              process -> {
                process.destroy();
                process.onExit().join();
              });
    }
    DetachedProcesses.stopAllUnder(work);
  }

  @Test
  void tenantsTokensAndSessionsKeptInTheNamespaceAreThereAfterTheServerRestarts() throws Exception {
    String archive = S3TestServer.get().archiveUrl(S3TestServer.freshPrefix());
    String tenantToken;
    String id;
    try (BerthServer server = new BerthServer(config("one", archive)).start()) {
      HttpResponse<String> tenant =
          send(
              server,
              TOKEN,
              "PUT",
              "/admin/tenants/acme",
              "{\"workloadTypes\":[\"shell\"],\"maxSessions\":2}");
      assertThat(tenant.statusCode()).as(tenant.body()).isEqualTo(201);
      HttpResponse<String> issued =
          send(
              server,
              TOKEN,
              "POST",
              "/admin/tokens",
              "{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\"],\"maxSessions\":2}");
      assertThat(issued.statusCode()).as(issued.body()).isEqualTo(201);
      tenantToken = JSON.readTree(issued.body()).path("token").asString();
      HttpResponse<String> created =
          send(server, tenantToken, "POST", "/sessions", "{\"name\":\"kept\"}");
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      id = JSON.readTree(created.body()).path("id").asString();
      assertThat(send(server, TOKEN, "GET", "/version", "").body()).contains("kubernetes");
    }

    assertThat(configMap("berth-installation")).isPresent();
    assertThat(configMap("session-" + id)).as("the session's ConfigMap").isPresent();

    try (BerthServer restarted = new BerthServer(config("one", archive)).start()) {
      HttpResponse<String> session = send(restarted, tenantToken, "GET", "/sessions/" + id, "");
      assertThat(session.statusCode()).as(session.body()).isEqualTo(200);
      assertThat(JSON.readTree(session.body()).path("name").asString()).isEqualTo("kept");
      JsonNode tenants = JSON.readTree(send(restarted, TOKEN, "GET", "/admin/tenants", "").body());
      assertThat(tenants.toString()).contains("\"acme\"");
      HttpResponse<String> audit = send(restarted, TOKEN, "GET", "/admin/audit", "");
      assertThat(audit.statusCode()).as(audit.body()).isEqualTo(200);
      assertThat(audit.body()).contains(id);
    }
  }

  @Test
  void aSecondServerWithTheLocalRuntimeOnTheNamespaceIsRefusedWhileTheFirstRuns() throws Exception {
    String archive = S3TestServer.get().archiveUrl(S3TestServer.freshPrefix());
    try (BerthServer first = new BerthServer(config("first", archive)).start()) {
      BerthServer second = new BerthServer(config("second", archive));
      assertThatThrownBy(second::start)
          .isInstanceOf(ClaimRefusedException.class)
          .hasMessageContaining("another berth server already runs on this store")
          .hasMessageContaining("stop it first");
      assertThat(send(first, TOKEN, "GET", "/sessions", "").statusCode()).isEqualTo(200);
    }
    new BerthServer(config("second", archive)).start().close();
  }

  @Test
  void theStoreFlagReadsANamespaceAndRefusesAnInvalidOne() {
    assertThat(StoreChoice.parse("kubernetes://berth", java.util.Map.of()))
        .isEqualTo(new StoreChoice.Kubernetes("berth"));
    assertThat(StoreChoice.parse("kubernetes://berth", java.util.Map.of()).shared()).isTrue();
    assertThatThrownBy(() -> StoreChoice.parse("kubernetes://Berth_NS", java.util.Map.of()))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("kubernetes://NAMESPACE needs a namespace")
        .hasMessageContaining("such as kubernetes://berth");
  }

  private static Optional<ConfigMap> configMap(String name) {
    return Optional.ofNullable(
        api.client().configMaps().inNamespace(MockApiServer.NAMESPACE).withName(name).get());
  }

  private ServerConfig config(String name, String archive) {
    Path dataDir = work.resolve(name);
    dataDirs.add(dataDir);
    return new ServerConfig("127.0.0.1", 0, dataDir)
        .withAdminToken(Optional.of(TOKEN))
        .withBackends(
            new ServerConfig.Backends(
                new StoreChoice.Kubernetes(MockApiServer.NAMESPACE),
                new ArchiveChoice.S3(
                    S3ArchiveUri.parse(archive)
                        .withStaticCredentials(
                            new S3ArchiveSettings.StaticCredentials("test", "test-secret"))),
                Optional.of(name)));
  }

  private HttpResponse<String> send(
      BerthServer server, String token, String method, String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/v1" + path))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .method(
                method,
                body.isEmpty()
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
