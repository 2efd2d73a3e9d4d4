package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The public API as a client written against the original platform's contract drives it, with only
 * the fields and status codes that contract defines: a session's whole life, then its deletion,
 * after which every route answers exactly as for an id that never existed, and the listing, which
 * returns every session when no {@code limit} is given.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OriginalContractIT {

  private static final String NEVER_EXISTED = "0123456789abcdef0123456789abcdef";

  private Path dataDir;
  private ServerProcess server;
  private Api api;

  @BeforeAll
  void startServer(@TempDir Path work) {
    dataDir = work.resolve("data");
    server = ServerProcess.start(dataDir, Map.of());
    api = new Api(server.baseUrl(), ServerProcess.ADMIN_TOKEN);
  }

  @AfterAll
  void stopServer() {
    server.close();
    ServerProcess.killNode(dataDir);
  }

  @Test
  void aSessionLivesThroughWriteReadSnapshotAndRestoreByReadThenIsGoneEverywhereOnceDeleted()
      throws Exception {
    Api.Answer created = api.post("/sessions", "{\"name\":\"contract\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String id = created.json().path("id").asString();
    assertThat(created.json().path("state").asString()).isEqualTo("active");
    assertThat(listedIds()).contains(id);
    assertThat(api.get("/sessions/" + id).json().path("name").asString()).isEqualTo("contract");

    assertThat(write(id, "echo contract-$((6*7))\n").status()).isEqualTo(200);
    assertThat(Shell.run(api, id, "echo again").output()).isEqualTo("again\n");
    assertThat(api.text(id, 0)).contains("contract-42");
    assertThat(api.post("/sessions/" + id + "/switch", "{}").json().path("state").asString())
        .isEqualTo("active");

    String pod = api.get("/sessions/" + id).json().path("pod").asString();
    Api.Answer snapshot = api.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
    assertThat(snapshot.json().path("state").asString()).isEqualTo("snapshot");
    assertThat(snapshot.json().has("pod")).as("no pod after a snapshot").isFalse();
    assertThat(snapshot.json().path("checkpoint").path("ref").asString()).isNotEmpty();
    assertThat(snapshot.json().path("checkpoint").path("reclaimed").asString())
        .isEqualTo("runtime " + pod);
    // A read restores a snapshot and serves the history from before it.
    Api.Answer read = api.post("/sessions/" + id + "/read", "{\"offset\":0}");
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().path("session").path("state").asString()).isEqualTo("active");
    assertThat(api.text(id, 0)).contains("contract-42");

    assertThat(api.delete("/sessions/" + id).status()).isIn(202, 204);

    for (Route route : Route.everyRouteOfASession()) {
      Api.Answer deleted = route.call(api, id);
      Api.Answer never = route.call(api, NEVER_EXISTED);
      assertThat(deleted.status())
          .as("%s of the deleted session: %s", route, deleted.body())
          .isEqualTo(404);
      assertThat(deleted.reason()).as("%s", route).isEqualTo(never.reason());
    }
    assertThat(api.attachOutcome(id))
        .isEqualTo(api.attachOutcome(NEVER_EXISTED))
        .isNotEqualTo("output");
    assertThat(listedIds()).doesNotContain(id);
    assertThat(api.deleted(id).path("id").asString()).isEqualTo(id);
  }

  @Test
  void theListingReturnsEverySessionWithoutALimitAndANewOneAfterManyWereCreatedAndDeleted()
      throws Exception {
    // Four at a time: the other half of the suite runs beside this one on two cores.
    ExecutorService clients = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> churn = new ArrayList<>();
      for (int i = 0; i < 150; i++) {
        String name = "churn-" + i;
        churn.add(
            clients.submit(() -> api.delete("/sessions/" + createWithoutWaiting(name)).status()));
      }
      for (Future<Integer> deleted : churn) {
        assertThat(deleted.get(120, TimeUnit.SECONDS)).isIn(202, 204);
      }
      List<Future<String>> kept = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        String name = "kept-" + i;
        kept.add(clients.submit(() -> createWithoutWaiting(name)));
      }
      List<String> keptIds = new ArrayList<>();
      for (Future<String> id : kept) {
        keptIds.add(id.get(120, TimeUnit.SECONDS));
      }
      String fresh = api.create("after-the-churn");

      JsonNode listing = api.get("/sessions").json();
      List<String> names = new ArrayList<>();
      listing.path("sessions").forEach(s -> names.add(s.path("name").asString()));

      assertThat(listing.has("nextPageToken")).as("one answer without a limit").isFalse();
      // Sessions still provisioning read as active: only the original's values are listed.
      listing
          .path("sessions")
          .forEach(
              s ->
                  assertThat(s.path("state").asString())
                      .as("state of %s (phase %s)", s.path("name"), s.path("phase"))
                      .isIn("active", "idle", "snapshot"));
      assertThat(names).contains("after-the-churn").noneMatch(n -> n.startsWith("churn-"));
      assertThat(listedIds()).containsAll(keptIds).contains(fresh);
      // With a limit it pages, in creation order; deleted ones are listed only on request.
      JsonNode first = api.get("/sessions?deleted=true&limit=50").json();
      assertThat(first.path("sessions").size()).isEqualTo(50);
      assertThat(first.path("nextPageToken").asString()).isNotEmpty();
      // More than the 100 a page used to hold, all in one answer without a limit.
      JsonNode deleted = api.get("/sessions?deleted=true").json();
      assertThat(deleted.path("sessions").size()).isGreaterThanOrEqualTo(150);
      assertThat(deleted.has("nextPageToken")).isFalse();
    } finally {
      clients.shutdownNow();
    }
  }

  @Test
  void aShellThatExitsLeavesTheSessionActiveWithItsWholeHistoryAndTheNextWriteGetsANewShell() {
    String id = api.create("exits");
    assertThat(Shell.run(api, id, "echo before-$((40+2)); export KEPT=no").output())
        .isEqualTo("before-42\n");

    assertThat(write(id, "exit 4\n").status()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> api.text(id, 0).contains("[berth] the shell exited with status 4;"));

    JsonNode session = api.get("/sessions/" + id).json();
    assertThat(session.path("state").asString()).isEqualTo("active");
    assertThat(session.path("phase").asString()).isEqualTo("READY");
    assertThat(session.has("failure")).isFalse();
    JsonNode shell = api.get("/sessions/" + id + "/runtime").json().path("shell");
    assertThat(shell.path("state").asString()).isEqualTo("exited");
    assertThat(shell.path("lastExitStatus").asInt()).isEqualTo(4);
    Api.Answer read = api.post("/sessions/" + id + "/read", "{\"offset\":0}");
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().path("payload").asString())
        .contains("before-42", "the shell exited with status 4");

    // It starts from the state the old one captured at its last prompt, as a restore would.
    assertThat(Shell.run(api, id, "echo after-$((6*7)) ${KEPT:-fresh}").output())
        .as("a new shell answers, in the same runtime")
        .isEqualTo("after-42 no\n");
    assertThat(api.text(id, 0))
        .contains("before-42", "[berth] a new shell starts (shell 2 of this runtime)");
    assertThat(
            api.get("/sessions/" + id + "/runtime").json().path("shell").path("state").asString())
        .isEqualTo("running");
    api.delete("/sessions/" + id);
  }

  @Test
  void berthAttachReplaysAHistoryWithVimIntoARealTerminalAndTheShellReceivesNothing()
      throws Exception {
    String id = api.create("replay");
    Shell.write(api, id, "TERM=xterm-256color vim -N -u NONE -i NONE /tmp/replay.txt\n");
    await().atMost(Duration.ofSeconds(30)).until(() -> api.text(id, 0).contains("\u001b[?1049h"));
    Shell.write(api, id, "\u001b:q!\r");
    await().atMost(Duration.ofSeconds(30)).until(() -> api.text(id, 0).contains("\u001b[?1049l"));
    assertThat(api.text(id, 0))
        .as("vim asked its terminal for the cursor position")
        .contains("\u001b[6n");
    settledEnd(id);
    // Every input frame of an attach is an access: an answer typed by the terminal would move it.
    String accessed = lastAccess(id);

    // The control: this terminal does answer a query, by typing into the program's input.
    try (TmuxTerminal probe =
        TmuxTerminal.run(
            "sh -c 'printf \"\\033[6n\"; dd bs=1 count=6 2>/dev/null | od -c; sleep 30'",
            Map.of())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> probe.screen().contains("[1;1R"));
    }
    try (TmuxTerminal terminal =
        TmuxTerminal.run(
            ServerProcess.Launch.plain().root().resolve("bin/berth")
                + " attach "
                + id
                + " --offset 0",
            Map.of("BERTH_URL", server.baseUrl(), "BERTH_TOKEN", ServerProcess.ADMIN_TOKEN))) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> terminal.screen().contains("Attached to session"));
      Thread.sleep(3000); // the replay is on the terminal; any answer would be typed by now

      assertThat(lastAccess(id))
          .as("no input reached the session; screen: %s", terminal.screen())
          .isEqualTo(accessed);

      // What the person types does reach the shell, and counts as access.
      terminal.type("echo typed-$((6*7))", "Enter");
      await().atMost(Duration.ofSeconds(30)).until(() -> api.text(id, 0).contains("typed-42"));
      assertThat(lastAccess(id)).isNotEqualTo(accessed);
    }
    api.delete("/sessions/" + id);
  }

  private String lastAccess(String id) {
    return api.get("/sessions/" + id).json().path("activity").path("lastAccess").asString();
  }

  /** The output's end once the shell stopped writing (its prompt is out). */
  private long settledEnd(String id) throws InterruptedException {
    long end = Shell.end(api, id);
    while (true) {
      Thread.sleep(500);
      long now = Shell.end(api, id);
      if (now == end) {
        return end;
      }
      end = now;
    }
  }

  /** Creates a session with {@code ?wait=false}: the answer comes while it provisions. */
  private String createWithoutWaiting(String name) {
    Api.Answer made = api.post("/sessions?wait=false", "{\"name\":\"" + name + "\"}");
    assertThat(made.status()).as(made.body()).isIn(201, 202);
    assertThat(made.json().path("state").asString()).as(made.body()).isEqualTo("active");
    return made.json().path("id").asString();
  }

  private List<String> listedIds() {
    List<String> ids = new ArrayList<>();
    api.get("/sessions").json().path("sessions").forEach(s -> ids.add(s.path("id").asString()));
    return ids;
  }

  private Api.Answer write(String id, String text) {
    return api.post(
        "/sessions/" + id + "/write", Api.JSON.createObjectNode().put("payload", text).toString());
  }

  /** A route of one session, as the original's clients call it. */
  private record Route(String method, String path, String body) {
    static List<Route> everyRouteOfASession() {
      return List.of(
          new Route("GET", "", null),
          new Route("POST", "/read", "{\"offset\":0}"),
          new Route("POST", "/write", "{\"payload\":\"echo\\n\"}"),
          new Route("POST", "/switch", "{}"),
          new Route("POST", "/snapshot", "{}"),
          new Route("GET", "/stream", null),
          new Route("GET", "/runtime", null),
          new Route("GET", "/idle", null),
          new Route("POST", "/keepalive", "{}"),
          new Route("GET", "/executions", null),
          new Route("POST", "/executions", "{\"command\":\"true\"}"),
          new Route("GET", "/operations", null),
          new Route("DELETE", "", null));
    }

    Api.Answer call(Api api, String id) {
      return api.send(method, "/sessions/" + id + path, body);
    }

    @Override
    public String toString() {
      return method + " /sessions/{id}" + path;
    }
  }
}
