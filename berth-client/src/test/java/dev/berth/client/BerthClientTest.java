package dev.berth.client;

import static dev.berth.client.FakeBerth.SID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class BerthClientTest {

  private static final SessionId ID = new SessionId(SID);

  @Test
  void createsASessionWithOnlyTheFieldsGivenAndTheBearerToken() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.post(
                        "/api/v1/sessions",
                        ctx -> FakeBerth.json(ctx, 202, FakeBerth.session("active"))));
        BerthClient client = berth.client()) {
      SessionView session =
          client.createSession(NewSession.named("demo").workloadType("shell").waitForActive(false));

      assertThat(session.id()).isEqualTo(ID);
      assertThat(session.state()).isEqualTo("active");
      FakeBerth.Seen request = berth.seen("/api/v1/sessions").get(0);
      assertThat(request.authorization()).isEqualTo("Bearer " + FakeBerth.TOKEN);
      assertThat(request.query()).isEqualTo("wait=false");
      assertThat(request.body()).isEqualTo("{\"name\":\"demo\",\"workloadType\":\"shell\"}");
    }
  }

  @Test
  void readsASessionIgnoringUnknownFieldsButKeepingThemInItsJson() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        "/api/v1/sessions/" + SID,
                        ctx -> FakeBerth.json(ctx, 200, FakeBerth.session("active"))));
        BerthClient client = berth.client()) {
      SessionView session = client.getSession(ID);

      assertThat(session.name()).isEqualTo("demo");
      assertThat(session.createdAt()).contains(Instant.parse("2026-01-02T03:04:05Z"));
      assertThat(session.intentVersion()).isEqualTo(OptionalLong.of(3));
      assertThat(session.runtimeName()).contains("berth-" + SID + "-1");
      assertThat(session.pod()).isEmpty();
      assertThat(session.conditions()).isEmpty();
      assertThat(session.json().path("futureField").path("x").asInt()).isEqualTo(1);
    }
  }

  @Test
  void turnsAProblemIntoAnApiExceptionWithReasonMessageAndSession() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        "/api/v1/sessions/" + SID,
                        ctx -> FakeBerth.problem(ctx, 404, "NOT_FOUND", "session not found")));
        BerthClient client = berth.client()) {
      assertThatThrownBy(() -> client.getSession(ID))
          .isInstanceOfSatisfying(
              BerthApiException.class,
              e -> {
                assertThat(e.status()).isEqualTo(404);
                assertThat(e.reason()).isEqualTo("NOT_FOUND");
                assertThat(e.getMessage()).isEqualTo("session not found");
                assertThat(e.session()).contains(SID);
              });
    }
  }

  @Test
  void explainsAnErrorBodyThatIsNotAProblemWithItsStatus() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        "/api/v1/config",
                        ctx ->
                            ctx.status(502)
                                .contentType("text/html")
                                .result("<html><body>Bad   gateway</body></html>")));
        BerthClient client = berth.client()) {
      assertThatThrownBy(client::config)
          .isInstanceOfSatisfying(
              BerthApiException.class,
              e -> {
                assertThat(e.status()).isEqualTo(502);
                assertThat(e.reason()).isEqualTo("HTTP_502");
                assertThat(e.getMessage())
                    .isEqualTo(
                        "the config answered HTTP 502 (text/html): <html><body>Bad gateway</body></html>");
              });
    }
  }

  @Test
  void saysItCannotReachAServerThatIsNotThere() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    try (BerthClient client = BerthClient.create("http://127.0.0.1:" + port + "/", "t")) {
      assertThatThrownBy(client::config)
          .isInstanceOf(BerthUnreachableException.class)
          .hasMessageStartingWith("cannot reach Berth at http://127.0.0.1:" + port + ": ")
          .hasMessageMatching(".*(refused|could not connect).*");
    }
  }

  @Test
  void refusesAUrlThatIsNotHttp() {
    assertThatThrownBy(() -> BerthClient.create("localhost:8080", "t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("http://HOST:PORT");
    assertThat(BerthClient.normalize("HTTP://example.com:9/berth/").toString())
        .isEqualTo("http://example.com:9/berth");
  }

  @Test
  void iteratesOverEveryPage() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        "/api/v1/sessions",
                        ctx -> {
                          String token = ctx.queryParam("pageToken");
                          if (token == null) {
                            FakeBerth.json(
                                ctx,
                                200,
                                "{\"sessions\":["
                                    + FakeBerth.session("active")
                                    + "],\"nextPageToken\":\"p 2\"}");
                          } else if (token.equals("p 2")) {
                            FakeBerth.json(ctx, 200, "{\"sessions\":[],\"nextPageToken\":\"p3\"}");
                          } else {
                            FakeBerth.json(
                                ctx, 200, "{\"sessions\":[" + FakeBerth.session("idle") + "]}");
                          }
                        }));
        BerthClient client = berth.client()) {
      List<String> states = new ArrayList<>();
      Iterator<SessionView> sessions = client.iterateSessions(SessionQuery.all().tenant("acme"));
      sessions.forEachRemaining(s -> states.add(s.state()));

      assertThat(states).containsExactly("active", "idle");
      assertThat(berth.seen("/api/v1/sessions"))
          .extracting(FakeBerth.Seen::query)
          .containsExactly("tenant=acme", "tenant=acme&pageToken=p+2", "tenant=acme&pageToken=p3");
    }
  }

  @Test
  void deleteSaysWhetherTheSessionIsTerminatedAndSendsIfMatchQuoted() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.delete(
                        "/api/v1/sessions/" + SID,
                        ctx -> {
                          if (ctx.header("If-Match") == null) {
                            ctx.status(204);
                          } else {
                            FakeBerth.json(ctx, 202, FakeBerth.session("deleted"));
                          }
                        }));
        BerthClient client = berth.client()) {
      assertThat(client.deleteSession(ID).terminated()).isTrue();

      Deletion pending = client.deleteSession(ID, OptionalLong.of(7));

      assertThat(pending.terminated()).isFalse();
      assertThat(pending.session().orElseThrow().state()).isEqualTo("deleted");
      assertThat(berth.seen.get(1).ifMatch()).isEqualTo("\"7\"");
    }
  }

  @Test
  void readsOutputBytesAndChecksTheyFillTheirOffsets() {
    try (FakeBerth berth =
            FakeBerth.start(
                r -> {
                  r.post(
                      "/api/v1/sessions/" + SID + "/read",
                      ctx -> FakeBerth.json(ctx, 200, FakeBerth.read(4, "héllo")));
                  r.post(
                      "/api/v1/sessions/" + SID + "/write",
                      ctx ->
                          FakeBerth.json(
                              ctx,
                              200,
                              "{\"session\":\"" + SID + "\",\"path\":\"idle->active->write\"}"));
                });
        BerthClient client = berth.client()) {
      ReadResult read = client.read(ID, 4);

      assertThat(new String(read.bytes(), StandardCharsets.UTF_8)).isEqualTo("héllo");
      assertThat(read.nextOffset()).isEqualTo(10);
      assertThat(berth.seen.get(0).body()).isEqualTo("{\"offset\":4}");
      assertThat(client.write(ID, "ls\n").path()).isEqualTo("idle->active->write");
      assertThat(berth.seen.get(1).body()).isEqualTo("{\"payload\":\"ls\\n\"}");
    }
  }

  @Test
  void refusesAReadWhosePayloadDoesNotFillItsOffsets() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.post(
                        "/api/v1/sessions/" + SID + "/read",
                        ctx ->
                            FakeBerth.json(
                                ctx,
                                200,
                                "{\"session\":\""
                                    + SID
                                    + "\",\"path\":\"active\",\"payload\":\"ab\",\"payloadBase64\":\"YWI=\",\"offset\":0,\"nextOffset\":9}")));
        BerthClient client = berth.client()) {
      assertThatThrownBy(() -> client.read(ID, 0))
          .isInstanceOf(BerthProtocolException.class)
          .hasMessageContaining("2 bytes for offsets 0..9");
    }
  }

  @Test
  void startsAnExecutionAndReadsItsState() {
    String execution =
        "{\"id\":\"x-0123456789abcdef01234567\",\"command\":\"false\",\"state\":\"FAILED\",\"exitCode\":1,"
            + "\"submittedAt\":\"2026-01-02T03:04:05Z\",\"timedOut\":false,\"output\":{\"nextOffset\":0}}";
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.post(
                        "/api/v1/sessions/" + SID + "/executions",
                        ctx -> FakeBerth.json(ctx, 201, execution)));
        BerthClient client = berth.client()) {
      Execution started =
          client.startExecution(
              ID, "false", java.util.Optional.of(java.time.Duration.ofSeconds(5)));

      assertThat(started.isFinished()).isTrue();
      assertThat(started.exitCode()).hasValue(1);
      assertThat(started.outputEnd()).hasValue(0);
      assertThat(berth.seen.get(0).body())
          .isEqualTo("{\"command\":\"false\",\"timeoutSeconds\":5}");
    }
  }

  @Test
  void anAnswerWithABrokenIdIsAProtocolError() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        "/api/v1/sessions/" + SID,
                        ctx -> FakeBerth.json(ctx, 200, "{\"id\":\"nope\",\"name\":\"x\"}")));
        BerthClient client = berth.client()) {
      assertThatThrownBy(() -> client.getSession(ID))
          .isInstanceOf(BerthProtocolException.class)
          .hasMessageContaining("not a valid session")
          .hasMessageContaining("32 lowercase hex");
    }
  }
}
