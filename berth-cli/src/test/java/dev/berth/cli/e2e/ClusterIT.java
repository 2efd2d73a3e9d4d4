package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.archive.s3.S3TestServer;
import dev.berth.kubernetes.runtime.KubeletSimulator;
import dev.berth.kubernetes.store.MockApiServer;
import dev.berth.server.store.sql.TestPostgres;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.s3.model.S3Object;
import tools.jackson.databind.JsonNode;

/**
 * Berth as a cluster: two {@code bin/berth server} processes, replicas sharing one PostgreSQL
 * (real, embedded in this JVM), archiving to one S3 bucket (real S3-compatible server, S3Mock, in
 * this JVM), running each session in a pod of its own with {@code --runtime kubernetes}.
 *
 * <p>Simulated, because no Kubernetes can run here: the API server is fabric8's mock server in CRUD
 * mode, and the nodes are the {@link KubeletSimulator}, which runs each pod's {@code berth agent}
 * as a real local process on an address of the pod's own (127.x.y.z) and writes the pod status a
 * kubelet would, including the failures it is told to stage. Everything else is real: the replicas,
 * their leases and quotas in PostgreSQL, the agents, their shells and their archives.
 */
class ClusterIT {
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final String NAMESPACE = MockApiServer.NAMESPACE;
  private static final String TOKEN_KEY =
      Base64.getEncoder()
          .encodeToString("cluster-it agent token key, 32+ bytes".getBytes(StandardCharsets.UTF_8));

  @TempDir static Path work;
  private static MockApiServer apiServer;
  private static KubeletSimulator kubelet;
  private static String archivePrefix;
  private static String store;
  private static String archive;
  private static ServerProcess one;
  private static ServerProcess two;
  private static Api a;
  private static Api b;

  @BeforeAll
  static void startCluster() throws Exception {
    apiServer = MockApiServer.start();
    Path pods = Files.createDirectories(work.resolve("pods"));
    kubelet = KubeletSimulator.start(apiServer.client(), NAMESPACE, pods);
    store =
        TestPostgres.freshDatabase()
            .jdbcUrl()
            .replace("jdbc:postgresql://", "postgres://postgres@");
    archivePrefix = S3TestServer.freshPrefix();
    archive = S3TestServer.get().archiveUrl(archivePrefix);
    one = replica("one", Map.of());
    two = replica("two", Map.of());
    a = new Api(one.baseUrl(), ServerProcess.ADMIN_TOKEN);
    b = new Api(two.baseUrl(), ServerProcess.ADMIN_TOKEN);
  }

  @AfterAll
  static void stopCluster() {
    for (ServerProcess server : new ServerProcess[] {one, two}) {
      if (server != null) {
        server.close();
      }
    }
    if (kubelet != null) {
      kubelet.close();
    }
    if (apiServer != null) {
      apiServer.close();
    }
  }

  /** A replica on the cluster's store, archive and namespace; {@code env} adds variables. */
  private static ServerProcess replica(String name, Map<String, String> env, String... flags) {
    Map<String, String> all = new java.util.HashMap<>(env);
    all.putAll(
        Map.of(
            "KUBERNETES_MASTER", "http://127.0.0.1:" + apiServer.port(),
            "KUBERNETES_AUTH_TRYKUBECONFIG", "false",
            "KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false",
            "BERTH_AGENT_TOKEN_KEY", TOKEN_KEY,
            "AWS_ACCESS_KEY_ID", "test",
            "AWS_SECRET_ACCESS_KEY", "test-secret"));
    List<String> arguments =
        new ArrayList<>(
            List.of(
                "--store", store,
                "--archive", archive,
                "--replica", name,
                "--runtime", "kubernetes",
                "--kube-namespace", NAMESPACE));
    if (!List.of(flags).contains("--agent-image")) {
      arguments.addAll(List.of("--agent-image", "berth-agent:test"));
    }
    arguments.addAll(List.of(flags));
    return ServerProcess.start(
        work.resolve(name),
        all,
        ServerProcess.Launch.plain().withArguments(arguments.toArray(String[]::new)));
  }

  @Test
  void
      aSessionCreatedThroughOneReplicaIsServedStreamedSnapshottedRestoredAndDeletedThroughTheOther()
          throws Exception {
    String id = a.create("across");
    b.write(id, "echo kept-$((40+2)) > ~/note.txt; echo ready-$((1+1))\n");
    await().atMost(CONVERGE).until(() -> b.text(id, 0).contains("ready-2"));
    assertThat(firstStreamedBytes(b, id)).contains("ready-2");
    assertThat(podsOf(id)).hasSize(1);

    Api.Answer snapshot = a.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    assertThat(snapshot.json().path("state").asString()).isEqualTo("snapshot");
    await().atMost(CONVERGE).until(() -> podsOf(id).isEmpty());
    assertThat(archiveKeys()).as("the archive in the bucket").isNotEmpty();

    long end = b.text(id, 0).length();
    b.write(id, "cat ~/note.txt\n");
    await().atMost(CONVERGE).until(() -> a.text(id, end).contains("kept-42"));
    assertThat(a.get("/sessions/" + id).json().path("state").asString()).isEqualTo("active");
    assertThat(podsOf(id))
        .singleElement()
        .satisfies(p -> assertThat(p.getMetadata().getName()).endsWith("-2"));

    assertThat(b.delete("/sessions/" + id).status()).isEqualTo(204);
    assertThat(a.get("/sessions/" + id).status()).isEqualTo(404);
    await().atMost(CONVERGE).until(() -> podsOf(id).isEmpty());
    await()
        .atMost(CONVERGE)
        .until(() -> a.deleted(id).path("reservation").asString().equals("RELEASED"));
  }

  @Test
  void concurrentReadsWritesAndSwitchesOverBothReplicasConvergeToOneRunningPod() throws Exception {
    String id = a.create("crowd");
    assertThat(a.post("/sessions/" + id + "/snapshot", "{}").status()).isEqualTo(200);
    await().atMost(CONVERGE).until(() -> podsOf(id).isEmpty());

    ExecutorService pool = Executors.newFixedThreadPool(24);
    try {
      List<CompletableFuture<Api.Answer>> calls = new ArrayList<>();
      for (int i = 0; i < 24; i++) {
        Api via = i % 2 == 0 ? a : b;
        String call =
            switch (i % 3) {
              case 0 -> "/read";
              case 1 -> "/write";
              default -> "/switch";
            };
        String body =
            switch (i % 3) {
              case 0 -> "{\"offset\":0}";
              case 1 -> "{\"payload\":\"echo crowd-" + i + "\\n\"}";
              default -> "{}";
            };
        calls.add(
            CompletableFuture.supplyAsync(() -> via.post("/sessions/" + id + call, body), pool));
      }
      for (CompletableFuture<Api.Answer> call : calls) {
        Api.Answer answer = call.join();
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(a.get("/sessions/" + id).json().path("state").asString()).isEqualTo("active");
    assertThat(podsOf(id)).hasSize(1);
    await().atMost(CONVERGE).until(() -> b.text(id, 0).contains("crowd-1"));
    assertThat(a.delete("/sessions/" + id).status()).isEqualTo(204);
  }

  @Test
  void aQuotaOfTwoHoldsAcrossReplicas() {
    Api.Answer issued =
        a.post(
            "/admin/tokens",
            "{\"tenant\":\"pied-piper\",\"workloadTypes\":[\"shell\"],\"maxSessions\":2}");
    assertThat(issued.status()).as(issued.body()).isEqualTo(201);
    String token = issued.json().path("token").asString();
    Api viaA = a.as(token);
    Api viaB = b.as(token);

    String first = viaA.create("p1");
    viaB.create("p2");
    Api.Answer third = viaA.post("/sessions", "{\"name\":\"p3\"}");
    Api.Answer fourth = viaB.post("/sessions", "{\"name\":\"p4\"}");

    assertThat(third.status()).as(third.body()).isEqualTo(429);
    assertThat(third.reason()).isEqualTo("QUOTA_EXCEEDED");
    assertThat(fourth.status()).as(fourth.body()).isEqualTo(429);
    assertThat(viaB.delete("/sessions/" + first).status()).isEqualTo(204);
    await()
        .atMost(CONVERGE)
        .until(() -> viaA.post("/sessions", "{\"name\":\"p3\"}").status() == 201);
  }

  @ParameterizedTest
  @CsvSource({"INVALID_IMAGE, IMAGE_INVALID", "CONFIG_ERROR, RUNTIME_CONFIG_INVALID"})
  void aPodThatCannotStartFailsItsCreateAndSessionWithItsReasonAndHoldsItsSlotUntilItIsGone(
      KubeletSimulator.Fault fault, String reason) {
    kubelet.planNext(fault);
    String name = "cannot-start-" + fault.name().toLowerCase(java.util.Locale.ROOT);

    Api.Answer created = b.post("/sessions", "{\"name\":\"" + name + "\"}");

    assertThat(created.status()).as(created.body()).isEqualTo(503);
    assertThat(created.reason()).isEqualTo("RUNTIME_UNAVAILABLE");
    assertThat(created.json().path("detail").asString()).contains(reason);
    assertFailedHoldingItsSlot(named(name).path("id").asString(), reason);
  }

  /**
   * Starts that wait on something that may resolve (no room on any node, an image pull backing off)
   * fail with that reason once the operation's deadline passed: a replica with a short {@code
   * --operation-timeout} creates them, and the deadline it records holds for every replica. (15 s,
   * not less: on a loaded machine the simulated kubelet may take seconds to write the stalled
   * status, and a start with none fails as DEADLINE_EXCEEDED.)
   */
  @ParameterizedTest
  @CsvSource({"NEVER_SCHEDULED, SCHEDULING", "IMAGE_PULL_BACKOFF, IMAGE_PULL"})
  void aStartThatStallsFailsWithItsReasonWhenItsDeadlinePasses(
      KubeletSimulator.Fault fault, String reason) {
    // Its pods run an image of their own, which the simulated kubelet fails: other replicas'
    // pods (created meanwhile by the resync of earlier tests' sessions) are left alone.
    String image = "stalled.example/" + fault.name().toLowerCase(java.util.Locale.ROOT) + ":1";
    kubelet.planImage(image, fault);
    try (ServerProcess impatient =
        replica(
            "impatient-" + fault.name().toLowerCase(java.util.Locale.ROOT),
            Map.of(),
            "--operation-timeout",
            "15s",
            "--agent-image",
            image)) {
      Api viaImpatient = new Api(impatient.baseUrl(), ServerProcess.ADMIN_TOKEN);
      String name = "stalled-" + fault.name().toLowerCase(java.util.Locale.ROOT);

      Api.Answer created = viaImpatient.post("/sessions", "{\"name\":\"" + name + "\"}");

      assertThat(created.status()).as(created.body()).isEqualTo(503);
      assertFailedHoldingItsSlot(named(name).path("id").asString(), reason);
    }
  }

  @ParameterizedTest
  @CsvSource({"OOM_KILLED, OUT_OF_MEMORY", "CRASH_LOOP, AGENT_CRASHLOOP", "EVICTED, EVICTED"})
  void aRunningPodsFailureFailsItsSessionWithItsReason(
      KubeletSimulator.Fault fault, String reason) {
    String id = a.create("broken-" + fault.name().toLowerCase(java.util.Locale.ROOT));
    await().atMost(CONVERGE).until(() -> running(id));

    kubelet.inject(podsOf(id).getFirst().getMetadata().getName(), fault);

    await()
        .atMost(CONVERGE)
        .until(() -> b.get("/sessions/" + id).json().path("failure").has("reason"));
    assertFailedHoldingItsSlot(id, reason);
  }

  @Test
  void aReplicaKilledMidSuspendIsTakenOverSoNoPodIsOrphanedAndTheArchiveRestoresWhole() {
    // Only the dying replica runs while the suspend crashes: another one's resync could otherwise
    // take the session's lease first and do the suspend itself, past the failpoint.
    one.close();
    two.close();
    String id;
    try (ServerProcess dying =
        replica("dying", Map.of("BERTH_FAILPOINTS", "suspend.after-commit"))) {
      Api viaDying = new Api(dying.baseUrl(), ServerProcess.ADMIN_TOKEN);
      id = viaDying.create("doomed");
      viaDying.write(id, "export MARKER=42; echo before-$((2*3))\n");
      await().atMost(CONVERGE).until(() -> viaDying.text(id, 0).contains("before-6"));

      CrashSteps.crashDuring(
          dying, "suspend.after-commit", api -> api.post("/sessions/" + id + "/snapshot", ""));
    }

    one = replica("one", Map.of());
    two = replica("two", Map.of());
    a = new Api(one.baseUrl(), ServerProcess.ADMIN_TOKEN);
    b = new Api(two.baseUrl(), ServerProcess.ADMIN_TOKEN);

    // The dead replica's lease expires (60 s) and a survivor finishes its suspend.
    await()
        .atMost(Duration.ofSeconds(180))
        .until(
            () ->
                a.get("/sessions/" + id).json().path("state").asString().equals("snapshot")
                    && podsOf(id).isEmpty());
    assertThat(a.get("/sessions/" + id).json().path("archive").isMissingNode()).isFalse();
    b.write(id, "echo marker-$MARKER\n");
    await().atMost(CONVERGE).until(() -> b.text(id, 0).contains("marker-42"));
    assertThat(b.text(id, 0)).contains("before-6");
    assertThat(podsOf(id)).hasSize(1);
    assertThat(a.delete("/sessions/" + id).status()).isEqualTo(204);
  }

  // ---- helpers --------------------------------------------------------------------------------

  /**
   * The session failed with {@code reason}, and its quota slot stays held while its pod may still
   * exist; deleting it removes the pod, and only then is the slot released.
   */
  private static void assertFailedHoldingItsSlot(String id, String reason) {
    JsonNode failed = a.get("/sessions/" + id).json();
    assertThat(failed.path("state").asString()).isEqualTo("failed");
    assertThat(failed.path("failure").path("reason").asString())
        .as("%s", failed.path("failure"))
        .isEqualTo(reason);
    assertThat(failed.path("reservation").asString())
        .as("its slot is held while its pod may exist")
        .isNotEqualTo("RELEASED");

    assertThat(a.delete("/sessions/" + id).status()).isEqualTo(204);
    await().atMost(CONVERGE).until(() -> podsOf(id).isEmpty());
    await()
        .atMost(CONVERGE)
        .until(() -> a.deleted(id).path("reservation").asString().equals("RELEASED"));
  }

  /** The live session named {@code name}, as replica one lists it. */
  private static JsonNode named(String name) {
    for (JsonNode s : a.get("/sessions").json().path("sessions")) {
      if (s.path("name").asString().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no session named " + name);
  }

  private static List<Pod> podsOf(String id) {
    return apiServer
        .client()
        .pods()
        .inNamespace(NAMESPACE)
        .withLabel("berth.dev/session", id)
        .list()
        .getItems();
  }

  private static boolean running(String id) {
    List<Pod> pods = podsOf(id);
    return !pods.isEmpty()
        && pods.getFirst().getStatus() != null
        && "Running".equals(pods.getFirst().getStatus().getPhase());
  }

  private static List<String> archiveKeys() {
    return S3TestServer.get()
        .client()
        .listObjectsV2(r -> r.bucket(S3TestServer.BUCKET).prefix(archivePrefix))
        .contents()
        .stream()
        .map(S3Object::key)
        .toList();
  }

  /** The payload of the first output event of the session's SSE stream, through {@code via}. */
  private static String firstStreamedBytes(Api via, String id) throws Exception {
    String base = via == a ? one.baseUrl() : two.baseUrl();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + "/api/v1/sessions/" + id + "/stream"))
            .header("Authorization", "Bearer " + ServerProcess.ADMIN_TOKEN)
            .timeout(Duration.ofSeconds(30))
            .build();
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<InputStream> response =
          http.send(request, HttpResponse.BodyHandlers.ofInputStream());
      assertThat(response.statusCode()).isEqualTo(200);
      try (BufferedReader lines =
          new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          if (line.startsWith("data:")) {
            JsonNode event = Api.JSON.readTree(line.substring("data:".length()).strip());
            return new String(
                Base64.getDecoder().decode(event.path("payloadBase64").asString()),
                StandardCharsets.UTF_8);
          }
        }
      }
    }
    throw new AssertionError("the stream of " + id + " ended without an output event");
  }
}
