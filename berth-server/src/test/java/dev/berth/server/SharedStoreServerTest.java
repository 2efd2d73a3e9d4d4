package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.archive.s3.S3ArchiveSettings;
import dev.berth.archive.s3.S3ArchiveUri;
import dev.berth.archive.s3.S3TestServer;
import dev.berth.core.error.InvalidValueException;
import dev.berth.protocol.node.NodeInfo;
import dev.berth.server.store.StoreAccessException;
import dev.berth.server.store.sql.PostgresLocation;
import dev.berth.server.store.sql.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A server on the shared backends ({@code --store postgres://…}, {@code --archive s3://…}) against
 * a real PostgreSQL (embedded, in this JVM) and a real S3-compatible server (S3Mock, in this JVM),
 * with its real local node and shells: the whole cycle (through a deleted session's recovery), the
 * refusals of a shared store given without what sharing needs, and the one-server claim of the
 * local runtime.
 */
class SharedStoreServerTest {
  private static final String TOKEN = "shared-admin-token-" + "s".repeat(32);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final java.time.Clock CLOCK = java.time.Clock.systemUTC();
  private static final dev.berth.server.store.sql.SqlTimings NONE =
      dev.berth.server.store.sql.SqlTimings.NONE;

  @TempDir Path work;
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<Path> dataDirs = new ArrayList<>();

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
    // A node a server was still starting when it closed has no node.json yet: it is found by
    // the directory its command line names.
    DetachedProcesses.stopAllUnder(work);
  }

  @Test
  void aServerOnPostgresAndS3ServesTheWholeCycleThroughRecoveryAndItsArchiveLivesInTheBucket()
      throws Exception {
    String prefix = S3TestServer.freshPrefix();
    String archive = S3TestServer.get().archiveUrl(prefix);
    try (BerthServer server =
        new BerthServer(config("one", TestPostgres.freshDatabase(), archive)).start()) {
      String id = create(server, "shared");
      write(server, id, "echo kept-$((40+2)) > ~/note.txt; echo ready-$((1+1))\n");
      await().atMost(CONVERGE).until(() -> text(server, id).contains("ready-2"));

      HttpResponse<String> snapshot = post(server, "/sessions/" + id + "/snapshot", "{}");
      assertThat(snapshot.statusCode()).as(snapshot.body()).isEqualTo(200);
      assertThat(JSON.readTree(snapshot.body()).path("state").asString()).isEqualTo("snapshot");
      assertThat(
              S3TestServer.get()
                  .client()
                  .listObjectsV2(b -> b.bucket(S3TestServer.BUCKET).prefix(prefix))
                  .contents())
          .as("the archive's objects in the bucket")
          .isNotEmpty();

      long end = text(server, id).length();
      write(server, id, "cat ~/note.txt\n");
      await()
          .atMost(CONVERGE)
          .until(() -> text(server, id).substring((int) end).contains("kept-42"));
      assertThat(JSON.readTree(get(server, "/sessions/" + id).body()).path("state").asString())
          .isEqualTo("active");

      HttpResponse<String> deleted = send(server, "DELETE", "/sessions/" + id, "");
      assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(204);
      assertThat(get(server, "/sessions/" + id).statusCode()).isEqualTo(404);
      assertThat(listedDeleted(server, id).has("recoveredAs")).isFalse();

      // Its last archive comes back as a new session; from then on the deleted one's listing names
      // that session (what the web UI links to), and a second recovery is refused.
      HttpResponse<String> recovered = post(server, "/sessions/" + id + "/recover", "{}");
      assertThat(recovered.statusCode()).as(recovered.body()).isEqualTo(201);
      String heir = JSON.readTree(recovered.body()).path("id").asString();
      JsonNode listed = listedDeleted(server, id);
      assertThat(listed.path("recoveredAs").asString()).isEqualTo(heir);
      assertThat(listed.path("recoverable").asBoolean()).isFalse();
      assertThat(post(server, "/sessions/" + id + "/recover", "{}").body())
          .contains("ALREADY_RECOVERED");
    }
  }

  /** The session as {@code GET /sessions?deleted=true} lists it. */
  private JsonNode listedDeleted(BerthServer server, String id) throws Exception {
    HttpResponse<String> listing = get(server, "/sessions?deleted=true");
    assertThat(listing.statusCode()).as(listing.body()).isEqualTo(200);
    for (JsonNode s : JSON.readTree(listing.body()).path("sessions")) {
      if (s.path("id").asString().equals(id)) {
        return s;
      }
    }
    throw new AssertionError("session " + id + " is not listed as deleted: " + listing.body());
  }

  @Test
  void aSecondServerWithTheLocalRuntimeOnTheSameStoreIsRefusedAndOneMayFollowOnceTheFirstStops()
      throws Exception {
    PostgresLocation store = TestPostgres.freshDatabase();
    String archive = S3TestServer.get().archiveUrl(S3TestServer.freshPrefix());
    Path secondDir = work.resolve("two");
    try (BerthServer first = new BerthServer(config("one", store, archive)).start()) {
      String id = create(first, "held");

      BerthServer second = new BerthServer(config("two", store, archive));
      assertThatThrownBy(second::start)
          .isInstanceOf(StoreAccessException.class)
          .hasMessageContaining("another berth server already runs on this store")
          .hasMessageContaining("stop it first");
      BerthServer pods =
          new BerthServer(
              config("pods", store, archive)
                  .withBackends(
                      new ServerConfig.Backends(
                          new StoreChoice.Postgres(store),
                          s3(archive),
                          Optional.of("pods"),
                          new RuntimeChoice.Kubernetes(
                              Optional.of("berth"),
                              "berth-agent:test",
                              Optional.empty(),
                              new byte[32]))));
      assertThatThrownBy(pods::start)
          .as("a kubernetes replica beside a local server")
          .isInstanceOf(StoreAccessException.class)
          .hasMessageContaining("a berth server with the local runtime runs on this store");
      assertThat(get(first, "/sessions/" + id).statusCode()).isEqualTo(200);
      assertThat(Files.exists(secondDir.resolve("admin.token")))
          .as("a refused start mints no admin token")
          .isFalse();
    }

    try (BerthServer second = new BerthServer(config("two", store, archive)).start()) {
      HttpResponse<String> listed = get(second, "/sessions");
      assertThat(listed.statusCode()).isEqualTo(200);
      assertThat(listed.body()).contains("held");
    }
  }

  @Test
  void aSecondReplicaUnderAnotherOnesNameIsRefusedNamingTheNameTheHolderAndTheWayOut()
      throws Exception {
    PostgresLocation store = TestPostgres.freshDatabase();
    String archive = S3TestServer.get().archiveUrl(S3TestServer.freshPrefix());
    ServerBackends first = ServerBackends.open(pod("one", store, archive, "blue"), CLOCK, NONE);
    try {
      assertThatThrownBy(
              () -> ServerBackends.open(pod("two", store, archive, "blue"), CLOCK, NONE).store())
          .isInstanceOf(StoreAccessException.class)
          .hasMessageContaining("another replica named \"blue\" already runs on this store")
          .hasMessageContaining("held by \"berth claim berth-replica blue by ")
          .hasMessageContaining("--replica NAME");
      ServerBackends green =
          ServerBackends.open(pod("three", store, archive, "green"), CLOCK, NONE);
      close(green);
    } finally {
      close(first);
    }

    // The name is free the moment its holder stops: a replica restarted under it takes it again.
    close(ServerBackends.open(pod("two", store, archive, "blue"), CLOCK, NONE));
  }

  /** A replica named {@code replica} with the Kubernetes runtime, which replicas share. */
  private ServerConfig pod(String dir, PostgresLocation store, String archive, String replica) {
    return config(dir, store, archive)
        .withBackends(
            new ServerConfig.Backends(
                new StoreChoice.Postgres(store),
                s3(archive),
                Optional.of(replica),
                new RuntimeChoice.Kubernetes(
                    Optional.of("berth"), "berth-agent:test", Optional.empty(), new byte[32])));
  }

  private static void close(ServerBackends backends) throws Exception {
    backends.runtimeClaim().close();
    backends.store().close();
  }

  @Test
  void aSharedStoreWithoutAnAdminTokenIsRefusedNamingTheVariableBeforeAnythingIsStored()
      throws Exception {
    Path dataDir = work.resolve("no-token");
    ServerConfig config =
        config(
                "no-token",
                TestPostgres.freshDatabase(),
                S3TestServer.get().archiveUrl(S3TestServer.freshPrefix()))
            .withAdminToken(Optional.empty());

    assertThatThrownBy(() -> new BerthServer(config).start())
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("is shared by every replica")
        .hasMessageContaining("BERTH_ADMIN_TOKEN");
    try (Stream<Path> files = Files.list(dataDir)) {
      assertThat(files.map(p -> p.getFileName().toString())).doesNotContain("admin.token");
    }
  }

  @Test
  void aSharedStoreWithTheDataDirectorysArchivesIsRefusedAskingForAnS3Archive() {
    ServerConfig config =
        new ServerConfig("127.0.0.1", 0, work.resolve("fs"))
            .withAdminToken(Optional.of(TOKEN))
            .withBackends(
                new ServerConfig.Backends(
                    new StoreChoice.Postgres(TestPostgres.freshDatabase()),
                    new ArchiveChoice.Filesystem(),
                    Optional.empty()));

    assertThatThrownBy(() -> new BerthServer(config).start())
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("the archives must be too")
        .hasMessageContaining("--archive s3://");
  }

  @Test
  void theStoreAndArchiveFlagsAreReadWithAClearRefusalForAnythingElse() {
    assertThat(StoreChoice.parse("sqlite", java.util.Map.of())).isEqualTo(new StoreChoice.Sqlite());
    assertThat(StoreChoice.parse("postgres://berth@db:5432/berth", java.util.Map.of()).shared())
        .isTrue();
    assertThat(ArchiveChoice.parse("filesystem")).isEqualTo(new ArchiveChoice.Filesystem());
    assertThat(ArchiveChoice.parse("s3://bucket/berth")).isInstanceOf(ArchiveChoice.S3.class);
    assertThatThrownBy(() -> StoreChoice.parse("mysql://db/berth", java.util.Map.of()))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("--store must be sqlite")
        .hasMessageContaining("a value with scheme \"mysql\"")
        .hasMessageNotContaining("db/berth");
    assertThatThrownBy(
            () -> StoreChoice.parse("postgress://berth:hunter2@db/berth", java.util.Map.of()))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageNotContaining("hunter2");
    assertThat(StoreChoice.parse("POSTGRES://berth@db/berth", java.util.Map.of()).shared())
        .isTrue();
    assertThatThrownBy(() -> ArchiveChoice.parse("/var/archives"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("--archive must be filesystem")
        .hasMessageContaining("a value without a scheme")
        .hasMessageNotContaining("/var/archives");
    assertThatThrownBy(() -> ArchiveChoice.parse("s3://key:secret@bucket/x"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageStartingWith("--archive ")
        .hasMessageNotContaining("secret");
  }

  /** The {@code --archive} value with the test server's keys (it takes any). */
  private static ArchiveChoice s3(String archive) {
    return new ArchiveChoice.S3(
        S3ArchiveUri.parse(archive)
            .withStaticCredentials(new S3ArchiveSettings.StaticCredentials("test", "test-secret")));
  }

  private ServerConfig config(String name, PostgresLocation store, String archive) {
    Path dataDir = work.resolve(name);
    dataDirs.add(dataDir);
    return new ServerConfig("127.0.0.1", 0, dataDir)
        .withAdminToken(Optional.of(TOKEN))
        .withBackends(
            new ServerConfig.Backends(
                new StoreChoice.Postgres(store), s3(archive), Optional.of(name)));
  }

  private String create(BerthServer server, String name) throws Exception {
    HttpResponse<String> created = post(server, "/sessions", "{\"name\":\"" + name + "\"}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    return JSON.readTree(created.body()).path("id").asString();
  }

  private void write(BerthServer server, String id, String input) throws Exception {
    HttpResponse<String> written =
        post(
            server,
            "/sessions/" + id + "/write",
            "{\"payload\":" + JSON.writeValueAsString(input) + "}");
    assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
  }

  /** Everything the session printed, read through the API (which restores a snapshot). */
  private String text(BerthServer server, String id) throws Exception {
    StringBuilder all = new StringBuilder();
    long at = 0;
    while (true) {
      HttpResponse<String> read =
          post(server, "/sessions/" + id + "/read", "{\"offset\":" + at + "}");
      assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
      JsonNode answer = JSON.readTree(read.body());
      byte[] bytes = Base64.getDecoder().decode(answer.path("payloadBase64").asString());
      if (bytes.length == 0) {
        return all.toString();
      }
      all.append(new String(bytes, StandardCharsets.UTF_8));
      at = answer.path("nextOffset").asLong();
    }
  }

  private HttpResponse<String> get(BerthServer server, String path) throws Exception {
    return send(server, "GET", path, "");
  }

  private HttpResponse<String> post(BerthServer server, String path, String body) throws Exception {
    return send(server, "POST", path, body);
  }

  private HttpResponse<String> send(BerthServer server, String method, String path, String body)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/v1" + path))
            .header("Authorization", "Bearer " + TOKEN)
            .method(
                method,
                body.isEmpty()
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
