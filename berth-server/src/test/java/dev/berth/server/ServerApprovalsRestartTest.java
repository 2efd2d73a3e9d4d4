package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.berth.core.approval.Approval;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.approval.ApprovalState;
import dev.berth.core.approval.RequestApproval;
import dev.berth.core.session.Session;
import dev.berth.core.testing.TestSessions;
import dev.berth.server.gateway.ExternalGateway;
import dev.berth.server.store.sql.SqlSessionStore;
import dev.berth.server.telemetry.Telemetry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A control plane that restarts with an approval relayed to the external gateway and still waiting:
 * the new start, over the same SQLite store, asks the gateway again, and the gateway's decision
 * lands. The gateway is a fake on loopback that answers PENDING until the test decides.
 */
class ServerApprovalsRestartTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String GATEWAY_KEY = "external-gateway-key";

  @TempDir Path dir;
  private final Clock clock = Clock.systemUTC();
  private final Map<String, String> statuses = new ConcurrentHashMap<>();
  private final List<JsonNode> posted = new CopyOnWriteArrayList<>();
  private final List<String> polled = new CopyOnWriteArrayList<>();
  private HttpServer fake;

  @BeforeEach
  void startFakeGateway() throws IOException {
    fake = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    fake.createContext(
        "/gw/api/requests",
        exchange -> {
          if (!GATEWAY_KEY.equals(exchange.getRequestHeaders().getFirst("x-api-key"))) {
            answer(exchange, 401, "{}");
          } else if (exchange.getRequestMethod().equals("POST")) {
            JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
            posted.add(body);
            String id = body.path("id").asString();
            boolean known = statuses.putIfAbsent(id, "PENDING") != null;
            answer(exchange, known ? 200 : 201, "{\"id\":\"" + id + "\",\"status\":\"PENDING\"}");
          } else {
            String path = exchange.getRequestURI().getPath();
            String id = path.substring(path.lastIndexOf('/') + 1);
            polled.add(id);
            answer(
                exchange, 200, "{\"id\":\"" + id + "\",\"status\":\"" + statuses.get(id) + "\"}");
          }
        });
    fake.start();
  }

  @AfterEach
  void stopFakeGateway() {
    fake.stop(0);
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("content-type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private ServerApprovals start(SqlSessionStore store, Telemetry telemetry) throws IOException {
    Path keyFile = dir.resolve("gateway.key");
    Files.writeString(keyFile, GATEWAY_KEY + "\n");
    URI url = URI.create("http://127.0.0.1:" + fake.getAddress().getPort() + "/gw");
    return ServerApprovals.open(
        new ApprovalSettings(
            Map.of(),
            Duration.ofMinutes(10),
            Optional.of(new ApprovalSettings.ExternalGateway(url, keyFile, Optional.empty()))),
        Map.of(),
        session -> ApprovalPolicy.OFF,
        store,
        GatewayKeyFile.loadOrCreate(dir),
        clock,
        telemetry);
  }

  @Test
  void aWaitingApprovalRelayedBeforeARestartIsPolledAgainAndTheGatewaysDecisionLands()
      throws Exception {
    try (SqlSessionStore store = SqlSessionStore.openSqlite(dir.resolve("berth.db"), clock);
        Telemetry telemetry = new Telemetry()) {
      Session session = store.create(TestSessions.ready(clock.instant()));
      ApprovalId id = ApprovalId.of(session.id(), "7".repeat(32));
      try (ServerApprovals before = start(store, telemetry)) {
        before
            .useCases()
            .request()
            .request(
                new RequestApproval.Call(
                    id,
                    "WebFetch",
                    "sha256:" + "ab".repeat(32),
                    "{\"url\":\"https://example.com\"}",
                    Optional.empty()));
        await().atMost(Duration.ofSeconds(10)).until(() -> !polled.isEmpty());
      }
      int pollsAtStop = polled.size();
      Thread.sleep(1500);
      assertThat(polled).as("the stopped server polls no more").hasSize(pollsAtStop);

      try (ServerApprovals after = start(store, telemetry)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> polled.size() > pollsAtStop);
        statuses.put(id.value(), "APPROVED");

        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    after.useCases().read().find(id).map(Approval::state).orElseThrow()
                        == ApprovalState.APPROVED);
        assertThat(after.useCases().read().find(id).orElseThrow().decidedBy())
            .contains(ExternalGateway.DECIDER);
      }
      assertThat(posted)
          .as("the new start relayed it again under the same id and digest")
          .hasSize(2)
          .allSatisfy(p -> assertThat(p.path("id").asString()).isEqualTo(id.value()))
          .allSatisfy(
              p ->
                  assertThat(p.path("argumentsDigest").asString())
                      .isEqualTo("sha256:" + "ab".repeat(32)));
      assertThat(store.events(session.id(), 0, 100))
          .filteredOn(e -> e.type().equals("approval.approved"))
          .hasSize(1);
    }
  }
}
