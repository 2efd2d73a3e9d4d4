package dev.berth.server.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.protocol.node.NodeInfo;
import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code --require-isolation} against a real node on a weak host: the node is started with a PATH
 * that has no bubblewrap (an operator's host without the package), so it can run sessions but not
 * sandbox them; the rule refuses them, and without the rule they run and say they are weak.
 */
class RequireIsolationTest {
  private static final String TOKEN = "r".repeat(40);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path dataDir;
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stopNode() {
    NodeInfo.read(dataDir.resolve("node"))
        .flatMap(info -> ProcessHandle.of(info.pid()))
        .ifPresent(
            process -> {
              process.destroy();
              process.onExit().join();
            });
  }

  @Test
  void aServerThatRequiresIsolationRefusesSessionsOnANodeThatCannotGiveIt() throws Exception {
    try (BerthServer server = new BerthServer(weakNode(true)).start()) {
      HttpResponse<String> created = create(server);

      assertThat(created.statusCode()).as(created.body()).isEqualTo(503);
      JsonNode problem = JSON.readTree(created.body());
      assertThat(problem.path("reason").asString()).isEqualTo("ISOLATION_UNAVAILABLE");
      assertThat(problem.path("detail").asString())
          .contains("--require-isolation")
          .contains("bubblewrap");
      assertThat(server.isolationTable())
          .anyMatch(line -> line.contains("NOT met"))
          .anyMatch(line -> line.contains("bubblewrap is not installed"));
    }
  }

  @Test
  void withoutTheRuleTheSessionRunsAndItsReportNamesWhatIsMissing() throws Exception {
    try (BerthServer server = new BerthServer(weakNode(false)).start()) {
      HttpResponse<String> created = create(server);
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      String id = JSON.readTree(created.body()).path("id").asString();

      JsonNode isolation =
          JSON.readTree(get(server, "/api/v1/sessions/" + id + "/runtime").body())
              .path("isolation");

      assertThat(isolation.path("sandbox").asString()).isEqualTo("none");
      assertThat(isolation.path("strong").asBoolean()).isFalse();
      assertThat(isolation.path("weaknesses").toString()).contains("no sandbox");
    }
  }

  private ServerConfig weakNode(boolean required) {
    List<String> command = new ArrayList<>(List.of("/usr/bin/env", "PATH=/nonexistent"));
    command.addAll(LocalNode.javaLaunchCommand());
    ServerConfig defaults = new ServerConfig("127.0.0.1", 0, dataDir);
    return new ServerConfig(
        defaults.host(),
        defaults.port(),
        defaults.dataDir(),
        Optional.of(TOKEN),
        command,
        "",
        defaults.lifecycle(),
        new ServerConfig.Isolation(List.of(), required),
        ServerConfig.Agents.none(),
        ServerConfig.Backends.defaults(),
        ServerConfig.Observability.defaults());
  }

  private HttpResponse<String> create(BerthServer server) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(server, "/api/v1/sessions"))
            .header("Authorization", "Bearer " + TOKEN)
            .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"weak\"}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(BerthServer server, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(server, path))
            .header("Authorization", "Bearer " + TOKEN)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static URI uri(BerthServer server, String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }
}
