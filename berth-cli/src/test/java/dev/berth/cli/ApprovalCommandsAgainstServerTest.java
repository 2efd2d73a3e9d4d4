package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.approval.GatewayKeys;
import dev.berth.protocol.node.NodeInfo;
import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * berth approvals, approve and reject against a real server started in-process (as {@code
 * ClientCommandsAgainstServerTest}), with a real local node and a real shell session. The tool
 * calls are asked for the way a session's credential proxy asks: {@code POST /gateway/api/requests}
 * with the session runtime's gateway key, derived from the installation's key in the data
 * directory; the decisions are then read back the way the proxy polls them.
 */
class ApprovalCommandsAgainstServerTest {

  private static final String ADMIN = "berth-cli-approvals-admin-token-0123456789";
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir static Path dataDir;
  @TempDir Path home;

  private static BerthServer server;
  private static String url;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

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

  /** A command run as the admin, with its exit code checked. */
  private CliHarness admin(int expected, String... args) {
    CliHarness run = new CliHarness(home);
    run.variables.put("BERTH_URL", url);
    run.variables.put("BERTH_TOKEN", ADMIN);
    assertThat(run.run(args)).as(String.join(" ", args) + ": " + run.err).isEqualTo(expected);
    return run;
  }

  @Test
  void heldToolCallsAreListedApprovedAndRejectedAndTheProxySeesEachDecision() throws Exception {
    JsonNode session =
        JSON.readTree(
            admin(0, "sessions", "create", "gated", "--type", "shell", "-o", "json")
                .out
                .toString());
    String sid = session.path("id").asString();
    String key = gatewayKey(session.path("runtime").path("name").asString());
    String first = sid + ":" + "a1".repeat(16);
    String second = sid + ":" + "b2".repeat(16);
    assertThat(ask(key, first, "Bash", "{\"command\":\"touch marker.txt\"}").statusCode())
        .isEqualTo(201);
    assertThat(ask(key, second, "WebFetch", "{\"url\":\"https://example.com\"}").statusCode())
        .isEqualTo(201);

    String table = admin(0, "approvals", "gated").out.toString();
    assertThat(table.lines().toList())
        .hasSize(3)
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("a1".repeat(16))
                    .contains("Bash", "{\"command\":\"touch marker.txt\"}", "pending"))
        .anySatisfy(l -> assertThat(l).startsWith("b2".repeat(16)).contains("WebFetch", "pending"));
    // (The harness's clock is fixed in the past, so the time left is not checked here.)
    assertThat(table).startsWith("ID  ").contains("ARGUMENTS", "EXPIRES", "DIGEST");
    JsonNode listed = JSON.readTree(admin(0, "approvals", "gated", "-o", "json").out.toString());
    assertThat(listed.path("items")).hasSize(2);
    assertThat(listed.path("items").get(0).path("arguments").asString()).isNotEmpty();
    JsonNode pending = JSON.readTree(admin(0, "sessions", "get", sid, "-o", "json").out.toString());
    assertThat(pending.path("pendingApprovals").asInt()).isEqualTo(2);

    assertThat(admin(0, "approve", "gated", "a1a1", "--reason", "harmless").out.toString())
        .contains("approved");
    assertThat(status(key, first).path("status").asString()).isEqualTo("APPROVED");

    admin(0, "reject", sid, second, "--reason", "not today");
    JsonNode rejected = status(key, second);
    assertThat(rejected.path("status").asString()).isEqualTo("REJECTED");
    assertThat(rejected.path("reason").asString()).isEqualTo("not today");

    assertThat(admin(1, "approve", "gated", first).err.toString())
        .startsWith("berth: APPROVAL_DECIDED: ");
    assertThat(admin(0, "approvals", "gated", "--pending", "-o", "json").out.toString())
        .isEqualTo("{\n  \"items\" : [ ]\n}\n");
    String decided = admin(0, "approvals", "gated").out.toString();
    assertThat(decided).contains("approved").contains("rejected").contains("not today");
    assertThat(admin(0, "sessions", "get", sid, "-o", "json").out.toString())
        .contains("\"pendingApprovals\" : 0");
    admin(0, "sessions", "delete", sid);
  }

  /** The gateway key of {@code runtime}, as the server derives it for that runtime's proxy. */
  private static String gatewayKey(String runtime) throws Exception {
    String text = Files.readString(dataDir.resolve("approval-gateway.key")).strip();
    return new GatewayKeys(Base64.getDecoder().decode(text)).keyFor(runtime);
  }

  /** What the session's proxy sends when it holds a tool call. */
  private static HttpResponse<String> ask(String key, String id, String tool, String arguments)
      throws Exception {
    String digest = "sha256:" + sha256(arguments);
    String body =
        JSON.writeValueAsString(
            java.util.Map.of(
                "id", id, "tool", tool, "argumentsDigest", digest, "arguments", arguments));
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url + "/gateway/api/requests"))
            .header("x-api-key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** What the proxy polls until a decision. */
  private static JsonNode status(String key, String id) throws Exception {
    HttpResponse<String> answer =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url + "/gateway/api/requests/" + id))
                .header("x-api-key", key)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return JSON.readTree(answer.body());
  }

  private static String sha256(String text) throws Exception {
    return java.util.HexFormat.of()
        .formatHex(
            java.security.MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}
