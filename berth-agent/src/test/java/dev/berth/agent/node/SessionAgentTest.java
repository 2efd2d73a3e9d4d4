package dev.berth.agent.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.host.HostRefusal;
import dev.berth.agent.host.RuntimeRequest;
import dev.berth.agent.host.RuntimeView;
import dev.berth.agent.http.AgentHttpServer;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code berth agent}: one session, its runtime created at start, every other session refused. */
class SessionAgentTest {

  private static final String TOKEN = "k".repeat(40);
  private static final SessionId SESSION = new SessionId("c".repeat(32));

  @TempDir Path root;

  @Test
  void theAgentCreatesItsSessionsRuntimeAtStartAndRefusesAnyOtherSession() {
    try (SessionAgent agent =
        SessionAgent.start(
            SESSION,
            3,
            "inst",
            HostConfig.defaults(root, TOKEN),
            AgentHttpServer.Settings.loopback(0))) {
      RuntimeView view = agent.host().status(SESSION);

      assertThat(view.descriptor().runtime()).isEqualTo("berth-" + SESSION.value() + "-3");
      assertThat(view.descriptor().labels())
          .containsEntry("berth.dev/installation", "inst")
          .containsEntry("berth.dev/incarnation", "3");
      assertThat(agent.port()).isPositive();
      SessionId other = new SessionId("d".repeat(32));
      assertThatThrownBy(
              () ->
                  agent
                      .host()
                      .provision(
                          other,
                          new RuntimeRequest("berth-" + other.value() + "-1", 1, "shell", Map.of()),
                          Optional.empty()))
          .isInstanceOf(HostRefusal.class)
          .hasMessageContaining("hosts only session " + SESSION.value());
    }
  }

  @Test
  void anAgentSessionsAgentIsReadyOnlyOnceItsProxySidecarAnswersForThisSession() throws Exception {
    com.sun.net.httpserver.HttpServer sidecar =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    java.util.concurrent.atomic.AtomicReference<String> answers =
        new java.util.concurrent.atomic.AtomicReference<>("d".repeat(32));
    sidecar.createContext(
        "/healthz",
        exchange -> {
          byte[] body =
              ("{\"status\":\"ok\",\"workload\":\"credential-proxy\",\"session\":\""
                      + answers.get()
                      + "\"}")
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    sidecar.start();
    java.net.URI proxy = java.net.URI.create("http://127.0.0.1:" + sidecar.getAddress().getPort());
    try (SessionAgent agent =
            SessionAgent.start(
                SESSION,
                1,
                "inst",
                false,
                Optional.of(
                    new PodWorkload(
                        "claude-code",
                        "/usr/bin/true",
                        "platform-default",
                        java.util.List.of(),
                        proxy)),
                HostConfig.defaults(root, TOKEN),
                AgentHttpServer.Settings.loopback(0));
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
      java.net.http.HttpRequest healthz =
          java.net.http.HttpRequest.newBuilder(
                  java.net.URI.create("http://127.0.0.1:" + agent.port() + "/healthz"))
              .build();
      assertThat(agent.host().status(SESSION).descriptor().workload()).isEqualTo("claude-code");

      // A sidecar bound to another session is not this session's proxy.
      Thread.sleep(1200);
      java.net.http.HttpResponse<String> notYet =
          http.send(healthz, java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(notYet.statusCode()).isEqualTo(503);
      assertThat(notYet.body()).contains("serves session", "d".repeat(32));
      assertThat(agent.proxyReady()).isFalse();

      answers.set(SESSION.value());
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(
              () ->
                  http.send(healthz, java.net.http.HttpResponse.BodyHandlers.ofString())
                          .statusCode()
                      == 200);
      assertThat(agent.proxyReady()).isTrue();
    } finally {
      sidecar.stop(0);
    }
  }
}
