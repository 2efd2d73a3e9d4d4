package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.client.BerthClient;
import dev.berth.client.OutputEvent;
import dev.berth.client.OutputFollow;
import dev.berth.client.OutputListener;
import dev.berth.client.SessionView;
import dev.berth.client.StreamEnd;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.node.NodeInfo;
import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * The client commands and the client against a real server started in-process on a free port, with
 * a temporary data directory and an explicit admin token. The server starts a real local node
 * process, which hosts real shells; {@link #stopServerAndNode()} stops the server, then the node
 * named in {@code <data-dir>/node/node.json} and everything it started.
 */
class ClientCommandsAgainstServerTest {

  private static final String ADMIN = "berth-cli-test-admin-token-0123456789abcdef";
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @TempDir static Path dataDir;
  @TempDir Path home;

  private static BerthServer server;
  private static String url;

  @BeforeAll
  static void startServer() {
    server =
        new BerthServer(
                new ServerConfig("127.0.0.1", 0, dataDir).withAdminToken(Optional.of(ADMIN)))
            .start();
    url = "http://127.0.0.1:" + server.port();
  }

  @AfterAll
  static void stopServerAndNode() throws Exception {
    if (server != null) {
      server.close();
    }
    Optional<ProcessHandle> node =
        NodeInfo.read(dataDir.resolve("node")).flatMap(info -> ProcessHandle.of(info.pid()));
    if (node.isPresent()) {
      List<ProcessHandle> started = node.get().descendants().toList();
      node.get().destroy();
      node.get().onExit().completeOnTimeout(node.get(), 10, TimeUnit.SECONDS).get();
      node.get().destroyForcibly();
      started.forEach(ProcessHandle::destroyForcibly);
    }
  }

  private CliHarness cli() {
    return new CliHarness(home);
  }

  /** A command run as {@code token} (BERTH_URL and BERTH_TOKEN), with its exit code checked. */
  private CliHarness as(String token, int expected, String... args) {
    CliHarness run = cli();
    run.variables.put("BERTH_URL", url);
    run.variables.put("BERTH_TOKEN", token);
    assertThat(run.run(args)).as(String.join(" ", args) + ": " + run.err).isEqualTo(expected);
    return run;
  }

  private CliHarness admin(String... args) {
    return as(ADMIN, 0, args);
  }

  @Test
  void aSessionIsNamedByItsIdAUniqueIdPrefixOrItsNameAndAnAmbiguousOneListsTheCandidates()
      throws Exception {
    SessionId first = createAs("named-first");
    String prefix = first.value().substring(0, 6);
    // A second session whose name is the first one's id prefix: the prefix now names both.
    SessionId second = createAs(prefix);

    assertThat(admin("sessions", "get", "named-first").out.toString()).contains(first.value());
    assertThat(admin("sessions", "get", first.value().substring(0, 12)).out.toString())
        .contains(first.value());

    CliHarness ambiguous = as(ADMIN, 2, "sessions", "get", prefix);
    assertThat(ambiguous.err.toString())
        .contains("names 2 sessions")
        .contains(first.value())
        .contains(second.value())
        .doesNotContain("Usage:");
    CliHarness none = as(ADMIN, 2, "sessions", "get", "no-such-session");
    assertThat(none.err.toString()).contains("no session has").doesNotContain("Usage:");

    assertThat(admin("sessions", "list", "-q").out.toString().lines())
        .contains(first.value(), second.value())
        .allMatch(line -> line.matches("[0-9a-f]{32}"));
    admin("sessions", "delete", second.value());
  }

  @Test
  void wideAddsColumnsAndYamlPrintsTheDocumentWithEveryControlCharacterEscaped() throws Exception {
    SessionId id = createAs("evil\u001b[2J\u202ename");

    assertThat(admin("sessions", "get", id.value(), "-o", "wide").out.toString())
        .startsWith("ID")
        .contains("TENANT")
        .contains("LAST ACCESS")
        .contains("admin")
        .contains("RUNNING v1");
    String yaml = admin("sessions", "get", id.value(), "-o", "yaml").out.toString();
    assertThat(yaml)
        .contains("id: \"" + id.value() + "\"")
        .contains("name: \"evil\\e[2J\\u202ename\"")
        .doesNotContain("\u001b")
        .doesNotContain("\u202e");
    var parsed = new tools.jackson.dataformat.yaml.YAMLMapper().readTree(yaml);
    assertThat(parsed.path("name").asString()).isEqualTo("evil\u001b[2J\u202ename");
    admin("sessions", "delete", id.value());
  }

  @Test
  void keepaliveIdleOperationsExecutionsAndRecoverWorkOnASessionByName() throws Exception {
    SessionId id = createAs("inspected");
    assertThat(admin("keepalive", "inspected", "--for", "20m", "-o", "json").out.toString())
        .contains("keepAliveUntil");
    assertThat(admin("idle", "inspected").out.toString()).startsWith("DECISION").contains("active");
    assertThat(as(ADMIN, 0, "exec", "inspected", "--", "true").err.toString()).isEmpty();
    assertThat(admin("executions", "inspected").out.toString())
        .startsWith("ID")
        .contains("SUCCEEDED")
        .contains("true");
    admin("snapshot", "inspected");
    assertThat(admin("operations", "inspected").out.toString())
        .contains("PROVISION")
        .contains("SUSPEND")
        .contains("SUCCEEDED");
    admin("sessions", "delete", "inspected");
    assertThat(admin("audit", "inspected").out.toString())
        .as("a deleted session's audit log, named by its name")
        .startsWith("SEQ")
        .contains("session.created")
        .contains("intent RUNNING v1");
    assertThat(admin("audit").out.toString())
        .as("the installation's log names each entry's session")
        .contains(id.value())
        .contains("session.created");
    assertThat(admin("audit", "inspected", "--since", "2999-01-01T00:00:00Z", "-o", "json").out)
        .hasToString("{\n  \"events\" : [ ]\n}\n");

    CliHarness recovered = admin("recover", "inspected", "-o", "json");
    var heir = JsonMapper.builder().build().readTree(recovered.out.toString());
    assertThat(heir.path("id").asString()).isNotEqualTo(id.value());
    assertThat(heir.path("state").asString()).isEqualTo("snapshot");
    admin("sessions", "delete", heir.path("id").asString());
  }

  @Test
  void theAdminSetsATenantsDisconnectPolicyAndTheListShowsIt() throws Exception {
    assertThat(
            admin(
                    "admin",
                    "tenants",
                    "set",
                    "lease-co",
                    "--type",
                    "shell",
                    "--max-sessions",
                    "3",
                    "--disconnect",
                    "continue",
                    "--disconnect-grace",
                    "30m")
                .out
                .toString())
        .contains("tenant lease-co: shell, at most 3 sessions, disconnect continue 1800s");
    assertThat(admin("admin", "tenants").out.toString())
        .containsPattern("lease-co +shell +egress +0 +3 +continue 1800s");
    assertThat(admin("admin", "tenants", "-o", "yaml").out.toString())
        .contains("policy: \"continue\"")
        .contains("graceSeconds: 1800");

    admin("admin", "tenants", "set", "lease-co", "--type", "shell", "--disconnect", "stop");
    assertThat(admin("admin", "tenants").out.toString())
        .containsPattern("lease-co +shell +egress +0 +10 +stop");
  }

  @Test
  void theAdminIssuesListsAndRevokesTokensAndARevokedTokenIsToldToLogIn() throws Exception {
    CliHarness issued =
        admin(
            "admin",
            "tokens",
            "create",
            "--tenant",
            "cli-co",
            "--type",
            "shell",
            "--network",
            "none",
            "-q");
    String token = issued.out.toString().strip();
    assertThat(as(token, 0, "sessions", "list").out.toString()).startsWith("ID");

    String listed = admin("admin", "tokens", "list").out.toString();
    assertThat(listed).startsWith("ID").contains("cli-co").doesNotContain(token);
    assertThat(admin("admin", "tenants").out.toString())
        .containsPattern("cli-co +shell +none +0 +10 +default");
    assertThat(admin("admin", "tenants", "-o", "yaml").out.toString())
        .contains("- tenant: \"cli-co\"")
        .contains("network: \"none\"");
    assertThat(as(token, 1, "admin", "tenants").err.toString()).contains("FORBIDDEN");

    String id = dev.berth.core.tenant.TokenDigest.of(token).hex();
    assertThat(admin("admin", "tokens", "revoke", id.substring(0, 16)).out.toString())
        .contains("revoked");
    assertThat(as(token, 1, "sessions", "list").err.toString())
        .contains("UNAUTHENTICATED")
        .contains("run berth login");
    assertThat(admin("admin", "tokens", "list").out.toString()).doesNotContain(id);
    assertThat(as(ADMIN, 2, "admin", "tokens", "revoke", id).err.toString())
        .contains("no token has the id");
  }

  private SessionId createAs(String name) throws Exception {
    CliHarness create = admin("sessions", "create", name, "--type", "shell", "-o", "json");
    var session = JsonMapper.builder().build().readTree(create.out.toString());
    return new SessionId(session.path("id").asString());
  }

  private SessionId create(String name) throws Exception {
    CliHarness create = cli();
    assertThat(create.run("sessions", "create", name, "--type", "shell", "-o", "json"))
        .as(create.err.toString())
        .isZero();
    var session = JsonMapper.builder().build().readTree(create.out.toString());
    assertThat(session.path("state").asString()).isEqualTo("active");
    return new SessionId(session.path("id").asString());
  }

  @Test
  void aSessionsLifeThroughTheCommands() throws Exception {
    CliHarness login = cli();
    assertThat(login.run("login", url + "/login?token=" + ADMIN)).as(login.err.toString()).isZero();

    SessionId id = create("cli demo");

    CliHarness list = cli();
    assertThat(list.run("sessions", "list")).isZero();
    assertThat(list.out.toString()).startsWith("ID ").contains(id.value()).contains("cli demo");

    CliHarness get = cli();
    assertThat(get.run("sessions", "get", id.value())).isZero();
    assertThat(get.out.toString()).contains(id.value()).contains("active");

    try (BerthClient client = BerthClient.create(url, ADMIN)) {
      assertThat(client.write(id, "echo hello-from-$((6*7))\n").path()).isEqualTo("active");
      awaitOutput(() -> text(client.read(id, 0).bytes()), "hello-from-42");
    }

    CliHarness logs = cli();
    assertThat(logs.run("logs", id.value())).isZero();
    assertThat(logs.stdoutText()).contains("hello-from-42");

    CliHarness exec = cli();
    assertThat(exec.run("exec", id.value(), "--", "sh", "-c", "echo 'out put'; exit 7"))
        .as(exec.err.toString())
        .isEqualTo(7);
    assertThat(exec.stdoutText()).contains("out put");

    CliHarness ok = cli();
    assertThat(ok.run("exec", id.value(), "--", "test", "two words", "=", "two words")).isZero();

    CliHarness delete = cli();
    assertThat(delete.run("sessions", "delete", id.value())).as(delete.err.toString()).isZero();
    assertThat(delete.out.toString()).contains(id.value());

    CliHarness after = cli();
    assertThat(after.run("sessions", "get", id.value(), "-o", "json"))
        .as("a deleted session is gone from the public API")
        .isNotZero();
    assertThat(after.err.toString()).contains("NOT_FOUND");
  }

  @Test
  void theClientFollowsTheStreamAndTheFollowEndsWhenTheSessionIsDeleted() throws Exception {
    try (BerthClient client = BerthClient.create(url, ADMIN)) {
      SessionView session = client.createSession("follow me");
      SessionId id = session.id();
      ByteArrayOutputStream seen = new ByteArrayOutputStream();
      OutputListener listener =
          new OutputListener() {
            @Override
            public void output(OutputEvent.Chunk chunk) {
              synchronized (seen) {
                seen.writeBytes(chunk.bytes());
              }
            }
          };
      Supplier<String> text =
          () -> {
            synchronized (seen) {
              return seen.toString(StandardCharsets.UTF_8);
            }
          };
      try (OutputFollow follow = client.follow(id, 0, listener)) {
        client.write(id, "echo first-$((1+1))\n");
        awaitOutput(text, "first-2");
        client.write(id, "echo second-$((2+2))\n");
        awaitOutput(text, "second-4");
        // The listener sees a chunk just before the follow moves its cursor past it.
        org.awaitility.Awaitility.await()
            .atMost(PATIENCE)
            .until(() -> follow.cursor() == text.get().getBytes(StandardCharsets.UTF_8).length);

        client.deleteSession(id);

        StreamEnd end = follow.await(PATIENCE).orElseThrow();
        assertThat(end.reason()).isEqualTo(StreamEnd.Reason.UNAVAILABLE);
      }
    }
  }

  @Test
  void logsFollowPrintsLiveOutputAndEndsWhenTheSessionGoes() throws Exception {
    SessionId id;
    try (BerthClient client = BerthClient.create(url, ADMIN)) {
      id = client.createSession("logs follower").id();
      client.write(id, "echo before-$((3*3))\n");
      awaitOutput(() -> text(client.read(id, 0).bytes()), "before-9");

      CliHarness logs = cli();
      logs.variables.put("BERTH_URL", url);
      logs.variables.put("BERTH_TOKEN", ADMIN);
      CompletableFuture<Integer> following =
          CompletableFuture.supplyAsync(() -> logs.run("logs", id.value(), "-f"));
      awaitOutput(() -> logs.stdoutTextSafely(), "before-9");
      client.write(id, "echo after-$((4*4))\n");
      awaitOutput(() -> logs.stdoutTextSafely(), "after-16");

      client.deleteSession(id);

      assertThat(following.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isZero();
      assertThat(logs.err.toString()).contains("its output stream ended");
    }
  }

  @Test
  void attachRelaysKeystrokesToTheShellThroughTheServer() throws Exception {
    try (BerthClient client = BerthClient.create(url, ADMIN)) {
      SessionId id = client.createSession("attach me").id();
      CliHarness attach = cli();
      attach.variables.put("BERTH_URL", url);
      attach.variables.put("BERTH_TOKEN", ADMIN);
      attach.terminal = new CliHarness.FakeTerminal(true);
      attach.stdin = "echo attached-$((5*5))\r\u001d".getBytes(StandardCharsets.UTF_8);

      assertThat(attach.run("attach", id.value())).as(attach.err.toString()).isZero();

      awaitOutput(() -> text(client.read(id, 0).bytes()), "attached-25");
      assertThat(attach.terminal.calls).containsExactly("raw", "watching", "unwatched", "restored");
      client.deleteSession(id);
    }
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void awaitOutput(Supplier<String> output, String expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      last = output.get();
      if (last.contains(expected)) {
        return;
      }
      Thread.sleep(100);
    }
    assertThat(last).as("output after " + PATIENCE).contains(expected);
  }
}
