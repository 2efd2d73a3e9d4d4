package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.host.SessionHost;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The host keeps the highest store epoch a control plane's request carried, durably, and reports
 * it: what lets a control plane whose store was restored from an older backup notice.
 */
class StoreEpochThroughAgentApiTest {

  private static final String TOKEN = "t".repeat(64);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path root;
  private final HttpClient http = HttpClient.newHttpClient();
  private @Nullable SessionHost host;
  private @Nullable AgentHttpServer server;

  @BeforeEach
  void start() {
    open();
  }

  @AfterEach
  void stop() {
    close();
  }

  @Test
  void theHostKeepsTheHighestEpochItSawAndReportsItInItsListingAndItsRoute() throws Exception {
    assertThat(epochRoute()).isZero();

    assertThat(get("/v1/sessions", TOKEN, "7").statusCode()).isEqualTo(200);
    get("/v1/sessions", TOKEN, "5");

    assertThat(epochRoute()).isEqualTo(7);
    assertThat(json(get("/v1/sessions", TOKEN, null)).path("storeEpoch").asLong()).isEqualTo(7);
    assertThat(Files.readString(root.resolve("store-epoch"), StandardCharsets.US_ASCII).strip())
        .isEqualTo("7");
  }

  @Test
  void theMarkSurvivesARestartOfTheHost() throws Exception {
    get("/v1/sessions", TOKEN, "12");

    close();
    open();

    assertThat(epochRoute()).isEqualTo(12);
  }

  @Test
  void aRequestWithoutTheTokenRaisesNothing() throws Exception {
    get("/v1/sessions", TOKEN, "3");

    assertThat(get("/v1/sessions", "x".repeat(64), "900").statusCode()).isEqualTo(401);

    assertThat(epochRoute()).isEqualTo(3);
  }

  @Test
  void aMalformedEpochIsRefusedNamingTheHeader() throws Exception {
    HttpResponse<String> answer = get("/v1/sessions", TOKEN, "-4");

    assertThat(answer.statusCode()).isEqualTo(400);
    assertThat(answer.body()).contains("X-Berth-Store-Epoch");
    assertThat(epochRoute()).isZero();
  }

  private long epochRoute() throws Exception {
    return json(get("/v1/store-epoch", TOKEN, null)).path("storeEpoch").asLong(-1);
  }

  private HttpResponse<String> get(String path, String token, @Nullable String epoch)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
            .header("Authorization", "Bearer " + token);
    if (epoch != null) {
      request.header("X-Berth-Store-Epoch", epoch);
    }
    return http.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(HttpResponse<String> answer) {
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return JSON.readTree(answer.body());
  }

  private int port() {
    AgentHttpServer running = server;
    assertThat(running).isNotNull();
    return running.port();
  }

  private void open() {
    host = SessionHost.open(HostConfig.defaults(root, TOKEN), Clock.systemUTC());
    server = AgentHttpServer.start(host, TOKEN, AgentHttpServer.Settings.loopback(0));
  }

  private void close() {
    if (server != null) {
      server.close();
      server = null;
    }
    if (host != null) {
      host.close();
      host = null;
    }
  }
}
