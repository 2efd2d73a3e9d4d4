package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.protocol.files.NotPrivateException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BerthServerTest {

  @TempDir Path dataDir;

  @Test
  void healthzAnswersOkOverHttp() throws Exception {
    try (BerthServer server = new BerthServer(new ServerConfig("127.0.0.1", 0, dataDir)).start();
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      assertThat(server.port()).isPositive();

      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/healthz"))
              .timeout(Duration.ofSeconds(10))
              .GET()
              .build();
      HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
      assertThat(response.body()).isEqualTo("{\"status\":\"ok\"}");
    }
  }

  @Test
  void readyzNamesEachCheckAndTheArchiveOnceArchivesCannotBeWritten() throws Exception {
    try (BerthServer server = new BerthServer(new ServerConfig("127.0.0.1", 0, dataDir)).start();
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      try {
        HttpResponse<String> ready = get(client, server, "/readyz");
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(ready.body())
            .isEqualTo(
                "{\"status\":\"ready\",\"checks\":{\"store\":\"ok\",\"schema\":\"ok\",\"runtime\":\"ok\","
                    + "\"archive\":\"ok\"}}");

        // Root writes where it likes, so permissions cannot make the directory unwritable: a
        // file takes its place, as a lost mount would leave nothing writable there.
        Path archives = dataDir.resolve("archives");
        try (Stream<Path> leftovers = Files.list(archives)) {
          assertThat(leftovers).as("the probes leave nothing").isEmpty();
        }
        Files.delete(archives);
        Files.writeString(archives, "not a directory");

        HttpResponse<String> notReady = get(client, server, "/api/v1/readyz");
        assertThat(notReady.statusCode()).isEqualTo(503);
        assertThat(notReady.body())
            .isEqualTo(
                "{\"status\":\"not ready\",\"checks\":{\"store\":\"ok\",\"schema\":\"ok\",\"runtime\":\"ok\","
                    + "\"archive\":\"failed\"}}")
            .as("the reason, with its path, is for the log only")
            .doesNotContain(dataDir.toString());
      } finally {
        stopNode();
      }
    }
  }

  @Test
  void versionNamesTheReleaseTheCommitTheStoreAndTheRuntimeAndWhoamiTheCaller() throws Exception {
    String token = "version-admin-token-" + "v".repeat(32);
    try (BerthServer server =
            new BerthServer(
                    new ServerConfig("127.0.0.1", 0, dataDir)
                        .withAdminToken(java.util.Optional.of(token)))
                .start();
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      HttpResponse<String> version = get(client, server, "/api/v1/version", token);
      HttpResponse<String> anonymous = get(client, server, "/api/v1/version");
      HttpResponse<String> whoami = get(client, server, "/api/v1/whoami", token);
      HttpResponse<String> issued =
          client.send(
              request(server, "/api/v1/admin/tokens")
                  .header("Authorization", "Bearer " + token)
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\"],\"maxSessions\":1}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      String tenantToken =
          tools.jackson.databind.json.JsonMapper.builder()
              .build()
              .readTree(issued.body())
              .path("token")
              .asString();
      HttpResponse<String> tenantWhoami = get(client, server, "/api/v1/whoami", tenantToken);
      HttpResponse<String> spec = get(client, server, "/api/v1/openapi.yaml");

      assertThat(version.statusCode()).isEqualTo(200);
      assertThat(version.body())
          .matches(
              "\\{\"version\":\"\\d+\\.\\d+\\.\\d+[^\"]*\",\"commit\":\"([0-9a-f]{7,}(-dirty)?|unknown)\","
                  + "\"store\":\"sqlite\",\"runtime\":\"local\"\\}");
      assertThat(anonymous.statusCode()).isEqualTo(401);
      assertThat(whoami.body()).isEqualTo("{\"principal\":\"admin\"}");
      assertThat(tenantWhoami.body()).isEqualTo("{\"principal\":\"tenant\",\"tenant\":\"acme\"}");
      assertThat(spec.statusCode()).as("the API's description needs no token").isEqualTo(200);
      assertThat(spec.body()).startsWith("openapi: 3.1");
    }
  }

  private void stopNode() {
    dev.berth.protocol.node.NodeInfo.read(dataDir.resolve("node"))
        .flatMap(info -> ProcessHandle.of(info.pid()))
        .ifPresent(
            process -> {
              process.destroy();
              process.onExit().join();
            });
  }

  private static HttpResponse<String> get(HttpClient client, BerthServer server, String path)
      throws Exception {
    return client.send(request(server, path).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(
      HttpClient client, BerthServer server, String path, String token) throws Exception {
    return client.send(
        request(server, path).header("Authorization", "Bearer " + token).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest.Builder request(BerthServer server, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(30))
        .GET();
  }

  @Test
  void closeIsIdempotent() {
    BerthServer server = new BerthServer(new ServerConfig("127.0.0.1", 0, dataDir)).start();
    server.close();
    server.close();
    assertThatThrownBy(server::port).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void closeBeforeStartDoesNothing() {
    BerthServer server = new BerthServer(new ServerConfig("127.0.0.1", 0, dataDir));
    server.close();
    assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void configRejectsOutOfRangePortNamingTheValue() {
    assertThatThrownBy(() -> new ServerConfig("127.0.0.1", 70_000, dataDir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("70000");
    assertThatThrownBy(() -> new ServerConfig("127.0.0.1", -1, dataDir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> new ServerConfig(" ", 8080, dataDir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("host");
  }

  @Test
  void aStartOnAWorldReadableDataDirectoryIsRefusedBeforeAnythingIsWrittenInIt() throws Exception {
    Path open = Files.createDirectory(dataDir.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
    BerthServer server = new BerthServer(new ServerConfig("127.0.0.1", 0, open));

    assertThatThrownBy(server::start)
        .isInstanceOf(NotPrivateException.class)
        .hasMessageStartingWith("data directory " + open + " has mode rwxr-xr-x (0755)")
        .hasMessageEndingWith("run: chmod 700 " + open);
    try (Stream<Path> files = Files.list(open)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void aStartWithAWorldReadableAdminTokenIsRefusedNamingTheFile() throws Exception {
    Path data = dataDir.resolve("data");
    new BerthServer(new ServerConfig("127.0.0.1", 0, data)).start().close();
    Path token = data.resolve("admin.token");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));

    assertThatThrownBy(() -> new BerthServer(new ServerConfig("127.0.0.1", 0, data)).start())
        .isInstanceOf(NotPrivateException.class)
        .hasMessageStartingWith("admin token file " + token + " has mode rw-r--r--")
        .hasMessageEndingWith("run: chmod 600 " + token);
  }

  @Test
  void everythingAStartedServerKeepsInItsDataDirectoryIsPrivate() throws Exception {
    Path data = dataDir.resolve("nested").resolve("data");
    try (BerthServer server = new BerthServer(new ServerConfig("127.0.0.1", 0, data)).start()) {
      assertThat(server.port()).isPositive();

      Map<String, String> modes = new TreeMap<>();
      try (Stream<Path> paths = Files.walk(data)) {
        for (Path path : paths.toList()) {
          modes.put(
              data.relativize(path).toString(),
              PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
        }
      }
      assertThat(modes)
          .containsKeys(
              "",
              "admin.token",
              "archives",
              "berth.db",
              "berth.db-wal",
              "berth.db-shm",
              "installation.id",
              "approval-gateway.key",
              "server.lock");
      modes.forEach(
          (path, mode) ->
              assertThat(mode).as(path.isEmpty() ? "the data directory" : path).endsWith("------"));
      assertThat(modes.get("")).isEqualTo("rwx------");
      assertThat(modes.get("berth.db-wal")).isEqualTo("rw-------");
    }
  }
}
