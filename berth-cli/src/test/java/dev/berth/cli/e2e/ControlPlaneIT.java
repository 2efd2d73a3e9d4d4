package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The control plane end to end: the real {@code bin/berth server} process, its real local node and
 * real shells, used only over HTTP.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControlPlaneIT {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private Path dataDir;
  private ServerProcess server;
  private Api admin;

  @BeforeAll
  void startServer(@TempDir Path work) {
    dataDir = work.resolve("data");
    server = ServerProcess.start(dataDir, Map.of());
    admin = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
  }

  @AfterAll
  void stopServer() {
    server.close();
    ServerProcess.killNode(dataDir);
  }

  @Test
  void threeSessionsGetThreeRuntimesAndDeletingOneReclaimsItsRuntime() {
    List<String> ids = List.of(admin.create("e2e-1"), admin.create("e2e-2"), admin.create("e2e-3"));
    Set<String> pods =
        ids.stream()
            .map(id -> admin.get("/sessions/" + id).json().path("pod").asString())
            .collect(Collectors.toSet());

    assertThat(pods).hasSize(3);
    assertThat(runtimeNames()).containsAll(pods);

    String gone = ids.get(1);
    String pod = admin.get("/sessions/" + gone).json().path("pod").asString();
    assertThat(admin.delete("/sessions/" + gone).status()).isEqualTo(204);
    assertThat(admin.get("/sessions/" + gone).status()).isEqualTo(404);
    JsonNode after = admin.deleted(gone);
    assertThat(after.path("state").asString()).isEqualTo("deleted");
    assertThat(after.path("phase").asString()).isEqualTo("TERMINATED");
    assertThat(after.path("reservation").asString()).isEqualTo("RELEASED");
    assertThat(runtimeNames()).doesNotContain(pod);
    assertThat(admin.post("/sessions/" + gone + "/read", "{}").status()).isEqualTo(404);
  }

  @Test
  void writeReadAndStreamGoThroughTheControlPlane() throws Exception {
    String id = admin.create("io");
    long cursor = admin.post("/sessions/" + id + "/read", null).json().path("nextOffset").asLong();

    Api.Answer write =
        admin.post("/sessions/" + id + "/write", "{\"payload\":\"echo e2e-$((40+2))\\n\"}");

    assertThat(write.status()).isEqualTo(200);
    assertThat(write.json().path("path").asString()).isEqualTo("active");
    await().atMost(WAIT).until(() -> admin.text(id, cursor).contains("e2e-42"));
    Api.Answer read = admin.post("/sessions/" + id + "/read", "{\"offset\":" + cursor + "}");
    assertThat(read.json().path("path").asString()).isEqualTo("active");
    assertThat(read.json().path("session").path("state").asString()).isEqualTo("active");

    HttpResponse<InputStream> stream =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            server.baseUrl()
                                + "/api/v1/sessions/"
                                + id
                                + "/stream?offset="
                                + cursor))
                    .header("Authorization", "Bearer " + ServerProcess.ADMIN_TOKEN)
                    .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    assertThat(stream.statusCode()).isEqualTo(200);
    assertThat(stream.headers().firstValue("content-type")).hasValue("text/event-stream");
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
      assertThat(lines.readLine()).isEqualTo(": connected");
      StringBuilder seen = new StringBuilder();
      String line;
      while (!seen.toString().contains("e2e-42") && (line = lines.readLine()) != null) {
        if (line.startsWith("data: ")) {
          JsonNode data = Api.JSON.readTree(line.substring(6));
          seen.append(
              new String(
                  Base64.getDecoder().decode(data.path("payloadBase64").asString()),
                  StandardCharsets.UTF_8));
        }
      }
      assertThat(seen.toString()).contains("e2e-42");
    }
  }

  @Test
  void aWriteLargerThanTheAgentsInputLimitIsAcceptedInPieces() {
    String id = admin.create("paste");
    String payload = ("#" + "x".repeat(98) + "\\n").repeat(20_000);

    Api.Answer write =
        admin.post("/sessions/" + id + "/write", "{\"payload\":\"" + payload + "\"}");

    // 2 MB is over the agent's 1 MiB per input call and under the API's 8 MiB body limit.
    assertThat(write.status()).isEqualTo(200);
    assertThat(write.json().path("session").path("state").asString()).isEqualTo("active");
  }

  @Test
  void switchingToAnActiveSessionIsANoOpThatAnswersTheSession() {
    String id = admin.create("switch");

    Api.Answer switched = admin.post("/sessions/" + id + "/switch", null);

    assertThat(switched.status()).isEqualTo(200);
    assertThat(switched.json().path("state").asString()).isEqualTo("active");
    assertThat(switched.json().path("id").asString()).isEqualTo(id);
  }

  @Test
  void theBodyContractHoldsCaseByCaseWithoutSideEffects() {
    String id = admin.create("bodies");
    String s = "/sessions/" + id;
    record Case(String path, String body, int status) {}
    List<Case> cases =
        List.of(
            new Case(s + "/read", null, 200),
            new Case(s + "/read", "{}", 200),
            new Case(s + "/write", null, 200),
            new Case(s + "/switch", null, 200),
            new Case(s + "/switch", "{}", 200),
            new Case(s + "/read", "null", 400),
            new Case(s + "/read", "{\"offset\":null}", 400),
            new Case(s + "/read", "{\"offset\":-1}", 400),
            new Case(s + "/read", "{\"offset\":1.5}", 400),
            new Case(s + "/read", "{\"nope\":1}", 400),
            new Case(s + "/read", "{", 400),
            new Case(s + "/read", "{}{}", 400),
            new Case(s + "/read", "[]", 400),
            new Case(s + "/write", "{\"payload\":\"echo SIDE-EFFECT\\n\",\"x\":1}", 400),
            new Case(s + "/write", "{\"payload\":\"echo SIDE-EFFECT\\n\"} {}", 400),
            new Case(s + "/write", "{\"payload\":null}", 400),
            new Case(s + "/switch", "{\"workloadType\":\"shell\"}", 400),
            new Case(s + "/snapshot", "{\"model\":\"x\"}", 400),
            new Case("/sessions", null, 400),
            new Case("/sessions", "{\"name\":\"   \"}", 400),
            new Case("/sessions", "{\"name\":\"x\",\"workloadType\":\"nope\"}", 400),
            new Case("/sessions", "{\"name\":\"x\",\"model\":\"m\"}", 400),
            new Case("/sessions", "{\"name\":\"x\",\"extra\":true}", 400));
    for (Case c : cases) {
      Api.Answer answer = admin.post(c.path(), c.body());
      assertThat(answer.status())
          .as("POST %s %s → %s", c.path(), c.body(), answer.body())
          .isEqualTo(c.status());
      if (c.status() == 400) {
        assertThat(answer.reason()).isEqualTo("INVALID_INPUT");
        assertThat(answer.json().path("error").asString()).startsWith("invalid input");
      }
    }
    String big = "{\"payload\":\"" + "a".repeat(8 * 1024 * 1024) + "\"}";
    Api.Answer tooLarge = admin.post(s + "/write", big);
    assertThat(tooLarge.status()).isEqualTo(413);
    assertThat(tooLarge.reason()).isEqualTo("PAYLOAD_TOO_LARGE");

    assertThat(admin.text(id, 0)).doesNotContain("SIDE-EFFECT");
    assertThat(
            admin
                .get("/sessions")
                .json()
                .path("sessions")
                .valueStream()
                .filter(n -> n.path("name").asString().equals("x")))
        .isEmpty();
  }

  @Test
  void twentyFourConcurrentReadsWritesAndSwitchesConvergeOnOneRuntime() throws Exception {
    String id = admin.create("crowd");
    String pod = admin.get("/sessions/" + id).json().path("pod").asString();
    ExecutorService pool = Executors.newFixedThreadPool(24);
    try {
      List<Future<Integer>> calls = new ArrayList<>();
      for (int i = 0; i < 24; i++) {
        int n = i;
        Callable<Integer> call =
            switch (n % 3) {
              case 0 -> () -> admin.post("/sessions/" + id + "/read", null).status();
              case 1 ->
                  () ->
                      admin
                          .post(
                              "/sessions/" + id + "/write", "{\"payload\":\"echo c" + n + "\\n\"}")
                          .status();
              default -> () -> admin.post("/sessions/" + id + "/switch", null).status();
            };
        calls.add(pool.submit(call));
      }
      for (Future<Integer> call : calls) {
        assertThat(call.get()).isEqualTo(200);
      }
    } finally {
      pool.shutdownNow();
    }
    JsonNode session = admin.get("/sessions/" + id).json();
    assertThat(session.path("state").asString()).isEqualTo("active");
    assertThat(session.path("pod").asString()).isEqualTo(pod);
    assertThat(
            ServerProcess.nodeRuntimes(dataDir).stream()
                .filter(r -> r.path("session").asString().equals(id)))
        .hasSize(1);
  }

  @Test
  void aSessionWhoseShellWasKilledStaysActiveAndTheNextWriteStartsANewShellInTheSameRuntime() {
    String id = admin.create("mortal");
    JsonNode runtime =
        ServerProcess.nodeRuntimes(dataDir).stream()
            .filter(r -> r.path("session").asString().equals(id))
            .findFirst()
            .orElseThrow();
    ProcessHandle.of(runtime.path("shell").path("pid").asLong()).orElseThrow().destroyForcibly();

    await()
        .atMost(WAIT)
        .until(() -> admin.text(id, 0).contains("the shell exited with status 137 (signal 9)"));
    JsonNode session = admin.get("/sessions/" + id).json();
    assertThat(session.path("state").asString()).isEqualTo("active");
    assertThat(session.has("failure")).isFalse();

    assertThat(Shell.run(admin, id, "echo reborn-$((6*7))").output()).isEqualTo("reborn-42\n");
    JsonNode after = admin.get("/sessions/" + id).json();
    assertThat(after.path("state").asString()).isEqualTo("active");
    assertThat(after.path("pod").asString())
        .as("the same runtime, not a new one")
        .isEqualTo(runtime.path("runtime").asString());
    assertThat(admin.delete("/sessions/" + id).status()).isEqualTo(204);
  }

  @Test
  void aLifecycleRequestWithAStaleIfMatchIsAPreconditionFailure() {
    String id = admin.create("ifmatch");
    long version = admin.get("/sessions/" + id).json().path("intentVersion").asLong();

    Api.Answer stale = admin.sendWithIfMatch("POST", "/sessions/" + id + "/switch", version + 5);
    Api.Answer fresh = admin.sendWithIfMatch("POST", "/sessions/" + id + "/switch", version);

    assertThat(stale.status()).isEqualTo(412);
    assertThat(stale.reason()).isEqualTo("PRECONDITION_FAILED");
    assertThat(fresh.status()).isEqualTo(200);
    assertThat(admin.sendWithIfMatch("DELETE", "/sessions/" + id, version + 5).status())
        .isEqualTo(412);
    assertThat(admin.get("/sessions/" + id).json().path("state").asString()).isEqualTo("active");
  }

  @Test
  void theIdlePolicyIsExplainedAndAKeepAliveIsBoundedAndIsNotAccess() {
    String id = admin.create("idle");
    String lastAccess = admin.get("/sessions/" + id).json().path("lastAccess").asString();

    JsonNode idle = admin.get("/sessions/" + id + "/idle").json();
    Api.Answer kept = admin.post("/sessions/" + id + "/keepalive", "{\"seconds\":999999}");

    assertThat(idle.path("decision").asString()).isEqualTo("active");
    assertThat(idle.path("suspendAt").asString()).isNotEmpty();
    assertThat(kept.status()).isEqualTo(200);
    java.time.Instant until =
        java.time.Instant.parse(kept.json().path("activity").path("keepAliveUntil").asString());
    assertThat(until).isBefore(java.time.Instant.now().plus(Duration.ofHours(4).plusMinutes(1)));
    assertThat(kept.json().path("lastAccess").asString()).isEqualTo(lastAccess);
    assertThat(admin.post("/sessions/" + id + "/keepalive", "{\"seconds\":0}").status())
        .isEqualTo(400);
  }

  @Test
  void anUnknownSessionIsNotFoundAndAMissingTokenIsUnauthenticated() {
    Api.Answer missing = admin.get("/sessions/" + "f".repeat(32));
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.json().path("error").asString()).isEqualTo("session not found");
    assertThat(admin.as("nobody-" + "z".repeat(40)).get("/sessions").status()).isEqualTo(401);
  }

  private Set<String> runtimeNames() {
    return ServerProcess.nodeRuntimes(dataDir).stream()
        .map(r -> r.path("runtime").asString())
        .collect(Collectors.toSet());
  }
}
