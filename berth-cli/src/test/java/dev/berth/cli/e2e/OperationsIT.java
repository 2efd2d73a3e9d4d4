package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * What an operator sees of the real distribution ({@code bin/berth server}, its node, real shells):
 * the metrics move through a create, snapshot, restore and delete; {@code /readyz} names the check
 * that fails; the log has a dated line per request and never a token.
 */
class OperationsIT {

  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir static Path work;
  private static ServerProcess server;
  private static Api admin;

  @BeforeAll
  static void startServer() {
    server =
        ServerProcess.start(
            work.resolve("data"),
            Map.of(),
            ServerProcess.Launch.plain().withArguments("--stop-node"));
    admin = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
  }

  /**
   * The server runs with {@code --stop-node}, and the tests leave no session: its node stops with
   * it rather than outliving it.
   */
  @AfterAll
  static void stopServerAndItsNode() throws Exception {
    long node =
        ServerProcess.readJson(work.resolve("data").resolve("node").resolve("node.json"))
            .path("pid")
            .asLong();
    try {
      server.close();
      assertThat(ProcessHandle.of(node).map(ProcessHandle::isAlive).orElse(false))
          .as("the node outlived a server run with --stop-node")
          .isFalse();
      assertThat(Files.readString(work.resolve("data.log")))
          .contains("node (pid " + node + ") stopped");
    } finally {
      ServerProcess.killNode(work.resolve("data"));
    }
  }

  @Test
  void theMetricsMoveThroughALifecycleAndTheLogHasALinePerRequestAndNoToken() throws Exception {
    Api.Answer issued =
        admin.post(
            "/admin/tokens",
            "{\"tenant\":\"metered\",\"workloadTypes\":[\"shell\"],\"maxSessions\":2}");
    assertThat(issued.status()).as(issued.body()).isEqualTo(201);
    String tenantToken = issued.json().path("token").asString();
    Api tenant = admin.as(tenantToken);
    String before = scrape(ServerProcess.ADMIN_TOKEN).body();

    String id = tenant.create("metered");
    await().atMost(CONVERGE).until(() -> state(tenant, id).equals("active"));
    String running = scrape(ServerProcess.ADMIN_TOKEN).body();
    assertThat(sum(running, "berth_sessions", "phase=\"ready\"")).isGreaterThanOrEqualTo(1);
    assertThat(sum(running, "berth_reservations", "state=\"held\""))
        .as("the running session's reservation")
        .isGreaterThanOrEqualTo(1);
    Api.Answer snapshot = tenant.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    Api.Answer read = tenant.post("/sessions/" + id + "/read", "{\"offset\":0}");
    assertThat(read.json().path("path").asString())
        .as(read.body())
        .isEqualTo("snapshot->restore->read");
    assertThat(tenant.delete("/sessions/" + id).status()).isIn(200, 202, 204);
    await()
        .atMost(CONVERGE)
        .until(() -> count(scrape(ServerProcess.ADMIN_TOKEN).body(), "terminate") >= 1);
    String after = scrape(ServerProcess.ADMIN_TOKEN).body();

    for (String type : List.of("provision", "suspend", "resume", "terminate")) {
      assertThat(count(after, type) - count(before, type))
          .as("berth_operations_seconds_count for %s", type)
          .isEqualTo(1);
      assertThat(after)
          .as("the %s histogram", type)
          .containsPattern(
              "berth_operations_seconds_bucket\\{[^}]*result=\"succeeded\"[^}]*type=\""
                  + type
                  + "\"[^}]*\\}");
    }
    assertThat(sum(after, "berth_http_server_requests_seconds_count", "route=\"/api/v1/sessions\""))
        .isGreaterThan(
            sum(before, "berth_http_server_requests_seconds_count", "route=\"/api/v1/sessions\""));
    // The snapshot wrote an archive and the restore read it back, through the store and the node.
    for (String direction : List.of("write", "read")) {
      assertThat(
              sum(after, "berth_archive_bytes_total", "direction=\"" + direction + "\"")
                  - sum(before, "berth_archive_bytes_total", "direction=\"" + direction + "\""))
          .as("archive bytes, %s", direction)
          .isPositive();
    }
    assertThat(sum(after, "berth_archive_transfers_seconds_count", "result=\"committed\""))
        .isGreaterThan(
            sum(before, "berth_archive_transfers_seconds_count", "result=\"committed\""));
    assertThat(sum(after, "berth_store_transactions_seconds_count", "kind=\"write\""))
        .isGreaterThan(sum(before, "berth_store_transactions_seconds_count", "kind=\"write\""));
    assertThat(sum(after, "berth_agent_calls_seconds_count", "outcome=\"2xx\""))
        .isGreaterThan(sum(before, "berth_agent_calls_seconds_count", "outcome=\"2xx\""));
    assertThat(after)
        .containsPattern("berth_agent_calls_seconds_count\\{[^}]*route=\"/v1/sessions/\\{id\\}/")
        .contains("berth_reservations{state=\"held\"}")
        .contains("berth_sessions{phase=\"ready\"}")
        .contains("berth_streams_open{kind=\"sse\"}")
        .contains("jvm_memory_used_bytes")
        .doesNotContain(id)
        .doesNotContain("metered");
    assertThat(scrape("").statusCode()).as("no token").isEqualTo(401);

    Api.Answer audit = tenant.get("/admin/audit?session=" + id);
    assertThat(audit.status()).as(audit.body()).isEqualTo(200);
    assertThat(audit.json().path("events").valueStream().map(e -> e.path("type").asString()))
        .as("the deleted session's log, read by its tenant")
        .contains("session.created", "session.intent", "session.phase");
    assertThat(
            admin
                .get("/admin/audit?session=" + id + "&since=2999-01-01T00:00:00Z")
                .json()
                .path("events"))
        .isEmpty();
    Api.Answer installation = admin.get("/admin/audit?limit=1000");
    assertThat(installation.status()).as(installation.body()).isEqualTo(200);
    assertThat(
            installation
                .json()
                .path("events")
                .valueStream()
                .filter(e -> e.path("session").asString().equals(id))
                .map(e -> e.path("type").asString()))
        .as("the installation's log holds the deleted session's entries")
        .contains("session.created");
    assertThat(tenant.get("/admin/audit").status())
        .as("the installation's log is the admin's")
        .isEqualTo(403);
    Api other =
        admin.as(
            admin
                .post(
                    "/admin/tokens",
                    "{\"tenant\":\"other\",\"workloadTypes\":[\"shell\"],\"maxSessions\":1}")
                .json()
                .path("token")
                .asString());
    assertThat(other.get("/admin/audit?session=" + id).status()).isEqualTo(404);
    assertThat(scrape(tenantToken).statusCode()).as("a tenant's token").isEqualTo(403);

    String log = Files.readString(work.resolve("data.log"));
    assertThat(log)
        .containsPattern(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO")
        .containsPattern("POST /api/v1/sessions 201 [0-9.]+ms principal=tenant:metered")
        .containsPattern(
            "POST /api/v1/sessions/\\{id\\}/snapshot 200 [0-9.]+ms principal=tenant:metered"
                + " session="
                + id)
        .containsPattern("DELETE /api/v1/sessions/\\{id\\} 20[024] [0-9.]+ms")
        .containsPattern("operation \\S+ succeeded: resume of session " + id)
        .doesNotContain(ServerProcess.ADMIN_TOKEN)
        .doesNotContain(tenantToken);
    assertThat(lines(log, "POST /api/v1/sessions 201")).as("one line per request").isEqualTo(1);
  }

  @Test
  void readyzNamesTheArchiveCheckWhenTheArchiveDirectoryCannotBeWritten() throws Exception {
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
    Path archives = work.resolve("data").resolve("archives");
    Path aside = work.resolve("archives-aside");
    // The tests run as root, whom no mode bit stops: a file where the directory was stops the
    // probe's write for anyone.
    Files.move(archives, aside);
    Files.writeString(archives, "not a directory");
    try {
      HttpResponse<String> ready = get("/readyz");
      assertThat(ready.statusCode()).isEqualTo(503);
      JsonNode checks = Api.JSON.readTree(ready.body()).path("checks");
      assertThat(checks.path("archive").asString()).as(ready.body()).isNotEqualTo("ok");
      assertThat(checks.path("store").asString()).isEqualTo("ok");
      assertThat(checks.path("schema").asString()).isEqualTo("ok");
      assertThat(checks.path("runtime").asString()).isEqualTo("ok");
    } finally {
      Files.delete(archives);
      Files.move(aside, archives);
    }
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
  }

  private static String state(Api api, String id) {
    return api.get("/sessions/" + id).json().path("state").asString();
  }

  private static HttpResponse<String> scrape(String token)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/metrics"));
    if (!token.isEmpty()) {
      request.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** How many {@code type} operations succeeded, by the histogram's count. */
  private static double count(String metrics, String type) {
    return sum(
        metrics, "berth_operations_seconds_count", "result=\"succeeded\"", "type=\"" + type + "\"");
  }

  /** The sum of the samples of {@code name} whose labels hold every one of {@code labels}. */
  private static double sum(String metrics, String name, String... labels) {
    double total = 0;
    Matcher line =
        // Greedy: a route template's label value has braces of its own ({id}).
        Pattern.compile("^" + Pattern.quote(name) + "\\{(.*)\\} (\\S+)$", Pattern.MULTILINE)
            .matcher(metrics);
    while (line.find()) {
      String found = line.group(1);
      if (java.util.Arrays.stream(labels).allMatch(found::contains)) {
        total += Double.parseDouble(line.group(2));
      }
    }
    return total;
  }

  private static long lines(String log, String text) {
    return log.lines().filter(l -> l.contains(text)).count();
  }
}
