package dev.berth.server.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.berth.core.approval.Approval;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.approval.ApprovalState;
import dev.berth.core.approval.DecideApproval;
import dev.berth.core.approval.RequestApproval;
import dev.berth.core.session.Session;
import dev.berth.core.testing.InMemoryApprovals;
import dev.berth.core.testing.InMemorySessionStore;
import dev.berth.core.testing.TestSessions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The external gateway client against a fake gateway: a loopback HTTP server speaking the approval
 * protocol, whose decisions the test sets.
 */
class ExternalGatewayTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String KEY = "external-gateway-key";
  private static final Duration TIMEOUT = Duration.ofMinutes(10);

  private final Clock clock = Clock.systemUTC();
  private final InMemorySessionStore sessions = new InMemorySessionStore(clock);
  private final InMemoryApprovals approvals = new InMemoryApprovals();
  private final Session session = sessions.create(TestSessions.ready(clock.instant()));
  private final Map<String, String> statuses = new ConcurrentHashMap<>();
  private final List<JsonNode> posted = new CopyOnWriteArrayList<>();
  private final List<String> keys = new CopyOnWriteArrayList<>();
  private HttpServer fake;
  private ExternalGateway gateway;

  private void startFake() throws IOException {
    fake = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    fake.createContext(
        "/gw/api/requests",
        exchange -> {
          keys.add(String.valueOf(exchange.getRequestHeaders().getFirst("x-api-key")));
          String path = exchange.getRequestURI().getPath();
          if (exchange.getRequestMethod().equals("POST")) {
            JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
            posted.add(body);
            statuses.putIfAbsent(body.path("id").asString(), "{\"status\":\"PENDING\"}");
            answer(
                exchange,
                201,
                "{\"id\":\"" + body.path("id").asString() + "\",\"status\":\"PENDING\"}");
          } else {
            String id = path.substring(path.lastIndexOf('/') + 1);
            answer(exchange, 200, statuses.getOrDefault(id, "{\"status\":\"PENDING\"}"));
          }
        });
    fake.start();
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("content-type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private RequestApproval requests(URI url, Duration retryWindow) {
    gateway =
        new ExternalGateway(
            new ExternalGateway.Settings(
                url, KEY, Optional.of("alice"), Duration.ofMillis(50), retryWindow),
            approvals,
            sessions,
            clock);
    return new RequestApproval(approvals, sessions, gateway, clock, TIMEOUT);
  }

  private Approval ask(RequestApproval requests, String requestId) {
    return requests
        .request(
            new RequestApproval.Call(
                ApprovalId.of(session.id(), requestId),
                "mcp__github__create_issue",
                "sha256:" + "ab".repeat(32),
                "{\"title\":\"hi\"}",
                Optional.empty()))
        .approval();
  }

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    if (fake != null) {
      fake.stop(0);
    }
  }

  @Test
  void eachNewApprovalIsForwardedAndTheGatewaysApprovalIsRecordedAsItsDecision() throws Exception {
    startFake();
    RequestApproval requests =
        requests(
            URI.create("http://127.0.0.1:" + fake.getAddress().getPort() + "/gw"),
            Duration.ofSeconds(10));
    Approval asked = ask(requests, "1".repeat(32));
    await().atMost(Duration.ofSeconds(10)).until(() -> posted.size() == 1);

    statuses.put(asked.id().value(), "{\"status\":\"APPROVED\",\"reason\":\"ok by alice\"}");

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> approvals.find(asked.id()).orElseThrow().state() == ApprovalState.APPROVED);
    Approval approved = approvals.find(asked.id()).orElseThrow();
    assertThat(approved.decidedBy()).contains(ExternalGateway.DECIDER);
    assertThat(approved.reason()).contains("ok by alice");
    JsonNode body = posted.get(0);
    assertThat(body.path("id").asString()).isEqualTo(asked.id().value());
    assertThat(body.path("tool").asString()).isEqualTo("mcp__github__create_issue");
    assertThat(body.path("argumentsDigest").asString()).isEqualTo(asked.argumentsDigest());
    assertThat(body.path("arguments").path("title").asString()).isEqualTo("hi");
    assertThat(body.path("userId").asString()).isEqualTo("alice");
    assertThat(keys).isNotEmpty().allMatch(KEY::equals);
  }

  @Test
  void theGatewaysRejectionKeepsItsReason() throws Exception {
    startFake();
    RequestApproval requests =
        requests(
            URI.create("http://127.0.0.1:" + fake.getAddress().getPort() + "/gw/"),
            Duration.ofSeconds(10));
    Approval asked = ask(requests, "2".repeat(32));
    statuses.put(asked.id().value(), "{\"status\":\"REJECTED\",\"reason\":\"no issues today\"}");

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> approvals.find(asked.id()).orElseThrow().state() == ApprovalState.REJECTED);
    assertThat(approvals.find(asked.id()).orElseThrow().reason()).contains("no issues today");
  }

  @Test
  void anUnreachableGatewayEndsTheApprovalRejectedAsGatewayUnavailable() throws Exception {
    startFake();
    int port = fake.getAddress().getPort();
    fake.stop(0);
    fake = null;
    RequestApproval requests =
        requests(URI.create("http://127.0.0.1:" + port + "/gw"), Duration.ofMillis(300));

    Approval asked = ask(requests, "3".repeat(32));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> approvals.find(asked.id()).orElseThrow().state() == ApprovalState.REJECTED);
    Approval rejected = approvals.find(asked.id()).orElseThrow();
    assertThat(rejected.reason()).contains(ExternalGateway.UNAVAILABLE);
    assertThat(rejected.decidedBy()).contains(ExternalGateway.DECIDER);
  }

  @Test
  void anApprovalDecidedThroughBerthIsNoLongerPolledAndKeepsBerthsDecision() throws Exception {
    startFake();
    RequestApproval requests =
        requests(
            URI.create("http://127.0.0.1:" + fake.getAddress().getPort() + "/gw"),
            Duration.ofSeconds(10));
    Approval asked = ask(requests, "4".repeat(32));
    await().atMost(Duration.ofSeconds(10)).until(() -> posted.size() == 1);

    new DecideApproval(approvals, sessions, clock)
        .decide(
            session.id(), asked.id(), DecideApproval.Decision.REJECT, Optional.of("no"), "admin");
    statuses.put(asked.id().value(), "{\"status\":\"APPROVED\"}");
    int polls = keys.size();
    Thread.sleep(300);

    assertThat(keys.size()).isLessThanOrEqualTo(polls + 1);
    Approval stored = approvals.find(asked.id()).orElseThrow();
    assertThat(stored.state()).isEqualTo(ApprovalState.REJECTED);
    assertThat(stored.decidedBy()).contains("admin");
  }

  @Test
  void aWaitingApprovalOfAReplicaThatStoppedIsRelayedAgainByTheNextAndItsDecisionLandsOnce()
      throws Exception {
    startFake();
    URI url = URI.create("http://127.0.0.1:" + fake.getAddress().getPort() + "/gw");
    Approval asked = ask(requests(url, Duration.ofSeconds(10)), "5".repeat(32));
    await().atMost(Duration.ofSeconds(10)).until(() -> posted.size() == 1);
    gateway.close(); // the replica that relayed it stops: nobody polls the approval any more
    int pollsBefore = keys.size();
    Thread.sleep(200);
    assertThat(keys).as("nobody polls after the stop").hasSize(pollsBefore);

    requests(url, Duration.ofSeconds(10)); // a new gateway client over the same store
    gateway.resume();
    gateway.resume(); // a sweep right after: the approval is polled once, not twice
    await().atMost(Duration.ofSeconds(10)).until(() -> posted.size() == 2);
    statuses.put(asked.id().value(), "{\"status\":\"APPROVED\",\"reason\":\"ok by bob\"}");

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> approvals.find(asked.id()).orElseThrow().state() == ApprovalState.APPROVED);
    assertThat(posted).extracting(p -> p.path("id").asString()).containsOnly(asked.id().value());
    assertThat(posted).hasSize(2);
    assertThat(approvals.find(asked.id()).orElseThrow().decidedBy())
        .contains(ExternalGateway.DECIDER);
    assertThat(sessions.events(session.id(), 0, 100))
        .filteredOn(e -> e.type().equals("approval.approved"))
        .hasSize(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> !gateway.relaying(asked.id()));
  }

  @Test
  void anApprovalThisReplicaPollsAlreadyIsNotRelayedAgainByASweep() throws Exception {
    startFake();
    URI url = URI.create("http://127.0.0.1:" + fake.getAddress().getPort() + "/gw");
    Approval asked = ask(requests(url, Duration.ofSeconds(10)), "6".repeat(32));
    await().atMost(Duration.ofSeconds(10)).until(() -> posted.size() == 1);

    gateway.resume();
    int polls = keys.size();
    await().atMost(Duration.ofSeconds(10)).until(() -> keys.size() >= polls + 3);

    assertThat(posted).as("still one POST: the sweep found it polled").hasSize(1);
    assertThat(gateway.relaying(asked.id())).isTrue();
  }
}
