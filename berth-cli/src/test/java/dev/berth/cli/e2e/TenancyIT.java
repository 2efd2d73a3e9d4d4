package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Two tenants on one real server: isolation, grants and quotas, only over HTTP. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenancyIT {

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
  void anotherTenantsSessionIsNotFoundOnEveryRouteExactlyLikeAMissingOne() throws Exception {
    Api acme = tenant("acme", "[\"shell\"]", 2);
    Api globex = tenant("globex", "[\"shell\"]", 2);
    String id = acme.create("acme-private");
    String missing = "0".repeat(32);
    List<String[]> routes =
        List.of(
            new String[] {"GET", "/sessions/%s"},
            new String[] {"DELETE", "/sessions/%s"},
            new String[] {"POST", "/sessions/%s/read"},
            new String[] {"POST", "/sessions/%s/write"},
            new String[] {"POST", "/sessions/%s/switch"},
            new String[] {"POST", "/sessions/%s/snapshot"},
            new String[] {"GET", "/sessions/%s/stream"},
            new String[] {"POST", "/sessions/%s/executions"},
            new String[] {"GET", "/sessions/%s/executions"},
            new String[] {"GET", "/sessions/%s/operations"});
    for (String[] route : routes) {
      String body =
          route[1].endsWith("executions") && route[0].equals("POST")
              ? "{\"command\":\"true\"}"
              : null;
      Api.Answer foreign = globex.send(route[0], route[1].formatted(id), body);
      Api.Answer absent = globex.send(route[0], route[1].formatted(missing), body);
      assertThat(foreign.status()).as("%s %s", route[0], route[1]).isEqualTo(404);
      assertThat(foreign.json().path("error").asString())
          .isEqualTo(absent.json().path("error").asString());
      assertThat(foreign.reason()).isEqualTo(absent.reason());
    }
    assertThat(globex.get("/sessions").json().path("sessions")).isEmpty();
    assertThat(acme.get("/sessions").json().path("sessions")).hasSize(1);
    assertThat(admin.get("/sessions?tenant=acme").json().path("sessions")).hasSize(1);
    assertThat(acme.get("/sessions/" + id).status()).isEqualTo(200);
    assertThat(attachRefused(globexToken, id)).isTrue();
  }

  @Test
  void aTenantCreatesOnlyTheWorkloadTypesItWasGranted() {
    Api initech = tenant("initech", "[\"claude-code\"]", 2);

    Api.Answer refused = initech.post("/sessions", "{\"name\":\"no-shell\"}");

    assertThat(refused.status()).isEqualTo(403);
    assertThat(refused.reason()).isEqualTo("WORKLOAD_NOT_ALLOWED");
    assertThat(initech.get("/sessions").json().path("sessions")).isEmpty();
  }

  @Test
  void aQuotaOfTwoRefusesTheThirdSessionUntilARuntimeIsConfirmedGone() {
    Api hooli = tenant("hooli", "[\"shell\"]", 2);
    String first = hooli.create("h1");
    hooli.create("h2");

    Api.Answer third = hooli.post("/sessions", "{\"name\":\"h3\"}");
    assertThat(third.status()).isEqualTo(429);
    assertThat(third.reason()).isEqualTo("QUOTA_EXCEEDED");

    assertThat(hooli.delete("/sessions/" + first).status()).isEqualTo(204);
    assertThat(hooli.deleted(first).path("reservation").asString()).isEqualTo("RELEASED");
    assertThat(hooli.post("/sessions", "{\"name\":\"h3\"}").status()).isEqualTo(201);
  }

  @Test
  void aSnapshotGivesItsSlotBackAndItsRestoreIsAdmittedLikeACreate() {
    Api initech = tenant("initech", "[\"shell\"]", 1);
    String frozen = initech.create("i1");
    Api.Answer snapshot = initech.post("/sessions/" + frozen + "/snapshot", "");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    String live = initech.create("i2");

    Api.Answer restore = initech.post("/sessions/" + frozen + "/read", "{\"offset\":0}");
    assertThat(restore.status()).as(restore.body()).isEqualTo(429);
    assertThat(restore.reason()).isEqualTo("QUOTA_EXCEEDED");
    assertThat(initech.get("/sessions/" + frozen).json().path("state").asString())
        .isEqualTo("snapshot");

    assertThat(initech.post("/sessions/" + live + "/snapshot", "").status()).isEqualTo(200);
    // Two reads of the snapshot at once: one restore is admitted, and both are served by it.
    var first =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> initech.post("/sessions/" + frozen + "/read", "{\"offset\":0}"));
    var second =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> initech.post("/sessions/" + frozen + "/read", "{\"offset\":0}"));
    assertThat(first.join().status()).as(first.join().body()).isEqualTo(200);
    assertThat(second.join().status()).as(second.join().body()).isEqualTo(200);
  }

  @Test
  void onlyTheAdministratorManagesTenants() {
    Api umbrella = tenant("umbrella", "[\"shell\"]", 1);

    Api.Answer refused =
        umbrella.post(
            "/admin/tokens",
            "{\"tenant\":\"umbrella\",\"workloadTypes\":[\"shell\"],\"maxSessions\":9}");

    assertThat(refused.status()).isEqualTo(403);
    assertThat(refused.reason()).isEqualTo("FORBIDDEN");
    assertThat(umbrella.get("/admin/tenants").status()).isEqualTo(403);
  }

  private String globexToken;

  private Api tenant(String name, String types, int max) {
    Api.Answer issued =
        admin.post(
            "/admin/tokens",
            "{\"tenant\":\""
                + name
                + "\",\"workloadTypes\":"
                + types
                + ",\"maxSessions\":"
                + max
                + "}");
    assertThat(issued.status()).as(issued.body()).isEqualTo(201);
    String token = issued.json().path("token").asString();
    if (name.equals("globex")) {
      globexToken = token;
    }
    return admin.as(token);
  }

  /** Whether a WebSocket attach with {@code token} to {@code id} is refused. */
  private boolean attachRefused(String token, String id) throws Exception {
    String outcome = admin.as(token).attachOutcome(id);
    return outcome.equals("refused") || outcome.equals("closed 1008");
  }
}
