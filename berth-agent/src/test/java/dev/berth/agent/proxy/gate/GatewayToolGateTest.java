package dev.berth.agent.proxy.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.core.approval.ApprovalPolicy;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The gateway's client against a gateway on loopback, decision by decision. */
class GatewayToolGateTest {

  private static final String SESSION = "s".repeat(32);
  private static final String KEY = "gateway-key-123";

  private FakeGateway gateway;

  @BeforeEach
  void start() throws Exception {
    gateway = FakeGateway.start(KEY);
  }

  @AfterEach
  void stop() {
    gateway.close();
  }

  private GatewayToolGate gate(URI url, String key, Duration timeout) {
    return new GatewayToolGate(
        new GateSettings(ApprovalPolicy.ALL, url, key, timeout),
        SESSION,
        HttpClient.newHttpClient(),
        InstantSource.system(),
        Duration.ofMillis(50));
  }

  private static ToolCall call() {
    return ToolCall.of("Bash", "{\"command\":\"echo sk-secret-1 hit\"}", List.of("sk-secret-1"));
  }

  @Test
  void aRequestNamesTheSessionTheToolTheDigestOfTheRawArgumentsAndARedactedPreview()
      throws Exception {
    gateway.decidesNext("APPROVED", "");
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofSeconds(30));
    String id = gate.requestId();

    Decision decision = gate.decide(id, call());

    assertThat(decision.lets()).isTrue();
    assertThat(id).matches(SESSION + ":[0-9a-f]{32}");
    assertThat(gate.requestId()).isNotEqualTo(id);
    FakeGateway.Pending sent = gateway.request(id).orElseThrow();
    assertThat(sent.tool()).isEqualTo("Bash");
    assertThat(sent.digest())
        .isEqualTo(ToolCall.digest("{\"command\":\"echo sk-secret-1 hit\"}"))
        .matches("sha256:[0-9a-f]{64}");
    assertThat(sent.arguments().path("command").asString()).isEqualTo("echo [REDACTED] hit");
    assertThat(gateway.received())
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.apiKey()).isEqualTo(KEY))
        .allSatisfy(r -> assertThat(r.body()).doesNotContain("sk-secret-1"));
  }

  @Test
  void aPendingRequestIsPolledUntilItsApproverDecides() throws Exception {
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofSeconds(30));
    String id = gate.requestId();
    CompletableFuture<Decision> decision =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return gate.decide(id, call());
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });

    await()
        .until(
            () -> gateway.received().stream().filter(r -> r.method().equals("GET")).count() >= 3);
    assertThat(decision).isNotDone();
    gateway.decide(id, "REJECTED", "not today");

    assertThat(decision.get())
        .isEqualTo(new Decision(Decision.Verdict.REJECTED, java.util.Optional.of("not today")));
  }

  @Test
  void expiredAndCancelledRequestsAreRefusalsOfTheirOwn() throws Exception {
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofSeconds(30));
    gateway.decidesNext("EXPIRED", "");
    assertThat(gate.decide(gate.requestId(), call()).verdict()).isEqualTo(Decision.Verdict.EXPIRED);
    gateway.decidesNext("CANCELLED", "the session was suspended");
    Decision cancelled = gate.decide(gate.requestId(), call());
    assertThat(cancelled.verdict()).isEqualTo(Decision.Verdict.CANCELLED);
    assertThat(cancelled.reason()).contains("the session was suspended");
  }

  @Test
  void noDecisionWithinTheTimeoutIsATimeoutAndTheRequestIsWithdrawn() throws Exception {
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofMillis(600));
    String id = gate.requestId();
    long started = System.nanoTime();

    Decision decision = gate.decide(id, call());

    assertThat(decision.verdict()).isEqualTo(Decision.Verdict.TIMED_OUT);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    assertThat(gateway.request(id).orElseThrow().status())
        .as("nobody can approve a call that no longer waits")
        .isEqualTo("CANCELLED");
    FakeGateway.Received withdraw = gateway.received().getLast();
    assertThat(withdraw.method()).isEqualTo("DELETE");
    assertThat(withdraw.path()).isEqualTo("/gateway/api/requests/" + id);
    assertThat(withdraw.apiKey()).isEqualTo(KEY);
  }

  @Test
  void theRequestSaysHowLongTheProxyHoldsTheCall() throws Exception {
    gateway.decidesNext("APPROVED", "");
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofSeconds(90));

    gate.decide(gate.requestId(), call());

    FakeGateway.Received create = gateway.received().getFirst();
    long hold =
        tools.jackson.databind.json.JsonMapper.builder()
            .build()
            .readTree(create.body())
            .path("holdSeconds")
            .asLong();
    assertThat(hold).isBetween(89L, 90L);
  }

  @Test
  void anApprovalThatLandsBetweenTheLastPollAndTheWithdrawIsHonouredSinceTheCallIsStillHeld()
      throws Exception {
    gateway.landsBeforeTheWithdraw("APPROVED");
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofMillis(400));
    String id = gate.requestId();

    Decision decision = gate.decide(id, call());

    assertThat(decision.lets()).isTrue();
    assertThat(gateway.request(id).orElseThrow().status()).isEqualTo("APPROVED");
  }

  @Test
  void aRejectionThatLandsBeforeTheWithdrawIsTheDecisionWithItsReason() throws Exception {
    gateway.landsBeforeTheWithdraw("REJECTED");
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofMillis(400));

    Decision decision = gate.decide(gate.requestId(), call());

    assertThat(decision.verdict()).isEqualTo(Decision.Verdict.REJECTED);
  }

  @Test
  void aWaitWhoseExchangeIsInterruptedWithdrawsTheRequest() throws Exception {
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofSeconds(30));
    String id = gate.requestId();
    java.util.concurrent.atomic.AtomicReference<Throwable> thrown =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread waiting =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    gate.decide(id, call());
                  } catch (Throwable t) {
                    thrown.set(t);
                  }
                });
    await().until(() -> gateway.received().stream().anyMatch(r -> r.method().equals("GET")));

    waiting.interrupt();
    waiting.join(Duration.ofSeconds(10));

    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    assertThat(gateway.request(id).orElseThrow().status()).isEqualTo("CANCELLED");
    assertThat(gateway.received())
        .anySatisfy(
            r -> {
              assertThat(r.method()).isEqualTo("DELETE");
              assertThat(r.path()).isEqualTo("/gateway/api/requests/" + id);
            });
  }

  @Test
  void aClientThatGoesAwayWhileTheCallIsHeldWithdrawsItsRequest() throws Exception {
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofSeconds(30));
    String id = gate.requestId();
    // The client goes away once the gateway holds the request: the keepalive after that fails.
    AnswerGate.Downstream gone =
        text -> {
          if (gateway.request(id).isPresent()) {
            throw new java.io.IOException("Broken pipe");
          }
        };

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> Holding.await(gate, id, call(), Duration.ofMillis(100), "event: ping\n\n", gone))
        .isInstanceOf(java.io.IOException.class);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> gateway.request(id).map(FakeGateway.Pending::status).orElse(""),
            "CANCELLED"::equals);
  }

  @Test
  void aGatewayThatRefusesTheIdIsNotAskedToWithdrawIt() throws Exception {
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofSeconds(30));
    String id = gate.requestId();
    gateway.decidesNext("APPROVED", "");
    gate.decide(id, call());

    Decision conflict =
        gate.decide(id, ToolCall.of("Bash", "{\"command\":\"rm -rf /\"}", List.of()));

    assertThat(conflict.verdict()).isEqualTo(Decision.Verdict.ERROR);
    assertThat(gateway.received()).noneMatch(r -> r.method().equals("DELETE"));
    assertThat(gateway.request(id).orElseThrow().status()).isEqualTo("APPROVED");
  }

  @Test
  void aGatewayThatCannotBeReachedIsAGatewayErrorAfterTheRetryWindow() throws Exception {
    URI closed = gateway.url();
    gateway.close();
    GatewayToolGate gate = gate(closed, KEY, Duration.ofSeconds(60));

    Decision decision = gate.decide(gate.requestId(), call());

    assertThat(decision.verdict()).isEqualTo(Decision.Verdict.ERROR);
    assertThat(decision.reason().orElseThrow()).contains("cannot be reached");
  }

  @Test
  void aGatewayThatFailsIsRetriedAndOneThatRefusesTheKeyIsAnErrorAtOnce() throws Exception {
    gateway.failsWith(503);
    GatewayToolGate gate = gate(gateway.url(), KEY, Duration.ofSeconds(60));
    String id = gate.requestId();
    CompletableFuture<Decision> decision =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return gate.decide(id, call());
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().until(() -> gateway.received().size() >= 2);
    gateway.failsWith(0);
    gateway.decidesNext("APPROVED", "");
    assertThat(decision.get().lets()).as("a retry within the window goes through").isTrue();

    Decision refused = gate(gateway.url(), "wrong-key", Duration.ofSeconds(60)).decide(id, call());
    assertThat(refused.verdict()).isEqualTo(Decision.Verdict.ERROR);
    assertThat(refused.reason().orElseThrow()).contains("401");
  }
}
