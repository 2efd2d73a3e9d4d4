package dev.berth.cli;

import static dev.berth.cli.FakeApi.SID;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.client.Execution;
import dev.berth.core.execution.ExecutionId;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** The client commands against a stand-in API: output formats, errors and exit codes. */
class ClientCommandsTest {

  private static final String OTHER = "fedcba9876543210fedcba9876543210";

  @TempDir Path home;

  private CliHarness cli(FakeApi api) {
    CliHarness cli = new CliHarness(home);
    cli.variables.put("BERTH_URL", api.url());
    cli.variables.put("BERTH_TOKEN", FakeApi.TOKEN);
    return cli;
  }

  private static FakeApi listing() {
    return new FakeApi(
        r -> {
          r.get(
              "/api/v1/sessions",
              ctx ->
                  FakeApi.json(
                      ctx,
                      200,
                      "{\"sessions\":["
                          + FakeApi.session(SID, "build box", "active")
                          + ","
                          + FakeApi.session(OTHER, "\u001b]0;pwned\u0007", "snapshot")
                          + "],\"nextPageToken\":\"n2\"}"));
          r.get(
              "/api/v1/sessions/" + SID,
              ctx -> FakeApi.problem(ctx, 404, "NOT_FOUND", "session not found"));
        });
  }

  @Test
  void listsSessionsAsAnAlignedTableWithEscapedNames() {
    try (FakeApi api = listing()) {
      CliHarness cli = cli(api);

      assertThat(cli.run("sessions", "list")).isZero();

      assertThat(cli.out.toString())
          .isEqualTo(
              "ID                                NAME              TYPE   STATE     RUNTIME"
                  + "                                   AGE\n"
                  + SID
                  + "  build box         shell  active    berth-"
                  + SID
                  + "-1  1h\n"
                  + OTHER
                  + "  \\x1b]0;pwned\\x07  shell  snapshot  berth-"
                  + OTHER
                  + "-1  1h\n");
      assertThat(cli.err.toString()).contains("more sessions follow").contains("--page-token n2");
      assertThat(api.seen.get(0).authorization()).isEqualTo("Bearer " + FakeApi.TOKEN);
    }
  }

  @Test
  void listsTheServersJsonForScripts() throws Exception {
    try (FakeApi api = listing()) {
      CliHarness cli = cli(api);

      assertThat(cli.run("sessions", "list", "-o", "json")).isZero();

      var document = JsonMapper.builder().build().readTree(cli.out.toString());
      assertThat(document.path("sessions").size()).isEqualTo(2);
      assertThat(document.path("sessions").get(0).path("somethingNew").asBoolean()).isTrue();
      assertThat(document.path("nextPageToken").asString()).isEqualTo("n2");
      assertThat(cli.out.toString()).doesNotContain("\u001b");
    }
  }

  @Test
  void anApiErrorIsOneLineOnStderrAndExitCodeOne() {
    try (FakeApi api = listing()) {
      CliHarness cli = cli(api);

      assertThat(cli.run("sessions", "get", SID)).isEqualTo(1);

      assertThat(cli.err.toString()).isEqualTo("berth: NOT_FOUND: session not found\n");
      assertThat(cli.out.toString()).isEmpty();
    }
  }

  @Test
  void anUnreachableServerIsExitCodeOneWithTheUrl() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    CliHarness cli = new CliHarness(home);
    cli.variables.put("BERTH_TOKEN", "t");

    int code = cli.run("sessions", "list", "--url", "http://127.0.0.1:" + port);

    assertThat(code).isEqualTo(1);
    assertThat(cli.err.toString())
        .startsWith("berth: UNREACHABLE: cannot reach Berth at http://127.0.0.1:" + port + ": ");
  }

  @Test
  void usageErrorsAreExitCodeTwo() {
    CliHarness cli = new CliHarness(home);
    assertThat(cli.run("sessions", "list")).isEqualTo(2);
    assertThat(cli.err.toString())
        .contains("no token for http://127.0.0.1:8080")
        .contains("berth login");

    CliHarness badId = new CliHarness(home);
    assertThat(badId.run("sessions", "get", " ")).isEqualTo(2);
    assertThat(badId.err.toString()).contains("not an empty string");

    CliHarness badFormat = new CliHarness(home);
    assertThat(badFormat.run("sessions", "list", "-o", "xml")).isEqualTo(2);
    assertThat(badFormat.err.toString()).contains("'xml' is not an output format");

    CliHarness badUrl = new CliHarness(home);
    badUrl.variables.put("BERTH_TOKEN", "t");
    assertThat(badUrl.run("sessions", "list", "--url", "localhost:8080")).isEqualTo(2);
    assertThat(badUrl.err.toString()).contains("http://HOST:PORT");
  }

  @Test
  void listAsksForTheStatesAndForDeletedSessionsAsTheServerFiltersThem() {
    try (FakeApi api =
        new FakeApi(
            r ->
                r.get(
                    "/api/v1/sessions",
                    ctx ->
                        FakeApi.json(
                            ctx,
                            200,
                            "{\"sessions\":[" + FakeApi.session(SID, "gone", "deleted") + "]}")))) {
      CliHarness list = cli(api);

      assertThat(list.run("sessions", "list", "--deleted", "--state", "snapshot,failed")).isZero();

      assertThat(api.seen.get(0).query()).isEqualTo("state=snapshot%2Cfailed&deleted=true");
      assertThat(list.out.toString()).contains("gone", "deleted");
    }
  }

  @Test
  void getShowsWhatTheLastArchiveLeftOutAndThePhaseBesideTheState() {
    String snapshot =
        FakeApi.session(SID, "frozen", "snapshot")
            .replace(
                ",\"somethingNew\":true}",
                ",\"phase\":\"RESUMING\",\"archive\":{\"generation\":2,\"sizeBytes\":4096,"
                    + "\"skipped\":[{\"path\":\"home/pipe\",\"reason\":\"fifo\"},"
                    + "{\"path\":\"home/\\u001b[2Jx\",\"reason\":\"socket\"}]}}");
    try (FakeApi api =
        new FakeApi(
            r -> r.get("/api/v1/sessions/" + SID, ctx -> FakeApi.json(ctx, 200, snapshot)))) {
      CliHarness get = cli(api);

      assertThat(get.run("sessions", "get", SID)).as(get.err.toString()).isZero();

      assertThat(get.out.toString())
          .contains("snapshot (restoring)")
          .contains("archive: generation 2, 4096 bytes; left out of it:\n")
          .contains("  home/pipe (fifo)\n")
          .contains("  home/\\x1b[2Jx (socket)\n");
    }
  }

  @Test
  void createsDeletesSwitchesAndSnapshots() {
    try (FakeApi api =
        new FakeApi(
            r -> {
              r.post(
                  "/api/v1/sessions",
                  ctx -> FakeApi.json(ctx, 201, FakeApi.session(SID, "demo", "active")));
              r.delete("/api/v1/sessions/" + SID, ctx -> ctx.status(204));
              r.post(
                  "/api/v1/sessions/" + SID + "/switch",
                  ctx -> FakeApi.json(ctx, 200, FakeApi.session(SID, "demo", "active")));
              r.post(
                  "/api/v1/sessions/" + SID + "/snapshot",
                  ctx ->
                      FakeApi.problem(
                          ctx,
                          503,
                          "SNAPSHOT_UNAVAILABLE",
                          "snapshots of shell sessions are not enabled"));
            })) {
      CliHarness create = cli(api);
      assertThat(create.run("sessions", "create", "demo", "--type", "shell")).isZero();
      assertThat(create.out.toString()).contains(SID).contains("demo").contains("active");
      assertThat(api.seen.get(0).body())
          .isEqualTo("{\"name\":\"demo\",\"workloadType\":\"shell\"}");

      CliHarness delete = cli(api);
      assertThat(delete.run("sessions", "delete", SID, "--if-match", "4")).isZero();
      assertThat(delete.out.toString()).isEqualTo("session " + SID + " terminated\n");

      CliHarness switched = cli(api);
      assertThat(switched.run("switch", SID, "-o", "json")).isZero();
      assertThat(switched.out.toString()).contains("\"state\" : \"active\"");

      CliHarness snapshot = cli(api);
      assertThat(snapshot.run("snapshot", SID)).isEqualTo(1);
      assertThat(snapshot.err.toString())
          .isEqualTo("berth: SNAPSHOT_UNAVAILABLE: snapshots of shell sessions are not enabled\n");
    }
  }

  @Test
  void logsPrintsTheOutputBytesRawFromTheOffset() {
    try (FakeApi api =
        new FakeApi(
            r ->
                r.post(
                    "/api/v1/sessions/" + SID + "/read",
                    ctx -> {
                      long offset =
                          JsonMapper.builder().build().readTree(ctx.body()).path("offset").asLong();
                      FakeApi.json(
                          ctx,
                          200,
                          offset == 3
                              ? FakeApi.read(3, "lo \u001b[1mworld")
                              : FakeApi.read(offset, ""));
                    }))) {
      CliHarness cli = cli(api);

      assertThat(cli.run("logs", SID, "--offset", "3")).isZero();

      assertThat(cli.stdoutText()).isEqualTo("lo \u001b[1mworld");
    }
  }

  @Test
  void execRunsTheQuotedCommandStreamsItsOutputAndExitsWithItsCode() {
    String eid = "x-0123456789abcdef01234567";
    String base = "/api/v1/sessions/" + SID + "/executions";
    String finished =
        "{\"id\":\""
            + eid
            + "\",\"command\":\"c\",\"state\":\"FAILED\",\"exitCode\":3,\"timedOut\":false,\"output\":{\"nextOffset\":6}}";
    try (FakeApi api =
        new FakeApi(
            r -> {
              r.post(
                  base,
                  ctx ->
                      FakeApi.json(
                          ctx,
                          201,
                          "{\"id\":\""
                              + eid
                              + "\",\"command\":\"c\",\"state\":\"RUNNING\",\"timedOut\":false}"));
              r.get(base + "/" + eid, ctx -> FakeApi.json(ctx, 200, finished));
              r.get(
                  base + "/" + eid + "/output",
                  ctx -> {
                    ctx.status(200).header("Content-Type", "text/event-stream");
                    OutputStream out = ctx.res().getOutputStream();
                    out.write(
                        ("id: 6\nevent: output\ndata: {\"offset\":0,\"payloadBase64\":\""
                                + Base64.getEncoder()
                                    .encodeToString("oops!\n".getBytes(StandardCharsets.UTF_8))
                                + "\",\"nextOffset\":6}\n\n")
                            .getBytes(StandardCharsets.UTF_8));
                    out.flush();
                  });
            })) {
      CliHarness cli = cli(api);

      int code = cli.run("exec", SID, "--timeout", "30s", "--", "grep", "-q", "two words", "it's");

      assertThat(code).isEqualTo(3);
      assertThat(cli.stdoutText()).isEqualTo("oops!\n");
      assertThat(api.seen.get(0).body())
          .isEqualTo("{\"command\":\"grep -q 'two words' 'it'\\\\''s'\",\"timeoutSeconds\":30}");
    }
  }

  @Test
  void execExitCodesFollowTheExecutionsEnd() {
    StringWriter err = new StringWriter();
    PrintWriter writer = new PrintWriter(err, true);
    assertThat(ExecCommand.exitCode(execution("SUCCEEDED", OptionalInt.of(0), false), writer))
        .isZero();
    assertThat(ExecCommand.exitCode(execution("FAILED", OptionalInt.of(42), false), writer))
        .isEqualTo(42);
    assertThat(ExecCommand.exitCode(execution("FAILED", OptionalInt.of(300), false), writer))
        .isEqualTo(255);
    assertThat(ExecCommand.exitCode(execution("FAILED", OptionalInt.empty(), false), writer))
        .isEqualTo(1);
    assertThat(err.toString()).isEmpty();
    assertThat(ExecCommand.exitCode(execution("CANCELLED", OptionalInt.empty(), true), writer))
        .isEqualTo(124);
    assertThat(err.toString()).contains("timed out");
    assertThat(ExecCommand.exitCode(execution("CANCELLED", OptionalInt.empty(), false), writer))
        .isEqualTo(130);
    assertThat(ExecCommand.exitCode(execution("LOST", OptionalInt.empty(), false), writer))
        .isEqualTo(1);
    assertThat(err.toString()).contains("was lost");
  }

  private static Execution execution(String state, OptionalInt exitCode, boolean timedOut) {
    return new Execution(
        new ExecutionId("x-0123456789abcdef01234567"),
        "true",
        state,
        exitCode,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        timedOut,
        Optional.empty(),
        JsonMapper.builder().build().createObjectNode());
  }

  @Test
  void loginChecksTheTokenAndSavesItPrivately() throws Exception {
    AtomicInteger checks = new AtomicInteger();
    try (FakeApi api =
        new FakeApi(
            r ->
                r.get(
                    "/api/v1/sessions",
                    ctx -> {
                      checks.incrementAndGet();
                      if (("Bearer " + FakeApi.TOKEN).equals(ctx.header("Authorization"))) {
                        FakeApi.json(ctx, 200, "{\"sessions\":[]}");
                      } else {
                        FakeApi.problem(
                            ctx, 401, "UNAUTHENTICATED", "missing or unknown bearer token");
                      }
                    }))) {
      CliHarness wrong = new CliHarness(home);
      assertThat(wrong.run("login", "--url", api.url(), "--token", "wrong")).isEqualTo(1);
      assertThat(wrong.err.toString())
          .isEqualTo("berth: UNAUTHENTICATED: missing or unknown bearer token\n");
      Path saved = home.resolve(".config/berth/credentials");
      assertThat(saved).doesNotExist();

      CliHarness login = new CliHarness(home);
      login.stdin = (FakeApi.TOKEN + "\n").getBytes(StandardCharsets.UTF_8);
      assertThat(login.run("login", "--url", api.url(), "--token", "-")).isZero();
      assertThat(login.out.toString()).contains("Logged in to " + api.url());
      assertThat(login.out.toString()).doesNotContain(FakeApi.TOKEN);
      assertThat(api.seen.get(1).query()).isEqualTo("limit=1");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(saved)))
          .isEqualTo("rw-------");

      CliHarness after = new CliHarness(home);
      assertThat(after.run("sessions", "list")).as(after.err.toString()).isZero();
      assertThat(api.seen.get(2).authorization()).isEqualTo("Bearer " + FakeApi.TOKEN);
    }
  }

  @Test
  void loginTakesTheLoginUrlTheServerPrinted() {
    try (FakeApi api =
        new FakeApi(
            r -> r.get("/api/v1/sessions", ctx -> FakeApi.json(ctx, 200, "{\"sessions\":[]}")))) {
      CliHarness login = new CliHarness(home);
      assertThat(login.run("login", api.url() + "/login?token=" + FakeApi.TOKEN)).isZero();
      assertThat(api.seen.get(0).authorization()).isEqualTo("Bearer " + FakeApi.TOKEN);
      assertThat(new CredentialStore(home.resolve(".config/berth")).load())
          .contains(new CredentialStore.Credentials(api.url(), FakeApi.TOKEN));
    }
  }

  @Test
  void theSavedTokenIsNeverSentToAnotherServer() {
    new CredentialStore(home.resolve(".config/berth"))
        .save(new CredentialStore.Credentials("http://127.0.0.1:9", "saved-secret"));
    try (FakeApi other =
        new FakeApi(
            r -> r.get("/api/v1/sessions", ctx -> FakeApi.json(ctx, 200, "{\"sessions\":[]}")))) {
      CliHarness cli = new CliHarness(home);

      assertThat(cli.run("sessions", "list", "--url", other.url())).isEqualTo(2);

      assertThat(cli.err.toString()).contains("no token for " + other.url());
      assertThat(other.seen).isEmpty();
    }
  }
}
