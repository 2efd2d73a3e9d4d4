package dev.berth.agent.node;

import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Whether the pod's credential proxy sidecar is up <em>for this session</em>: its {@code GET
 * /healthz} answers {@code {"status":"ok","session":"<this session>"}}. A proxy bound for another
 * session (a misbuilt pod) is not ready; neither is one that does not answer. Checked in the
 * background every half second until it holds once (a proxy that dies later makes its container
 * unready, and the kubelet restarts it).
 */
final class SidecarProxyCheck implements AutoCloseable {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Duration PERIOD = Duration.ofMillis(500);

  private final URI healthz;
  private final SessionId session;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private volatile String state = "the credential proxy sidecar has not answered yet";
  private volatile boolean ready;
  private final Thread worker;

  SidecarProxyCheck(URI proxy, SessionId session) {
    this.healthz = proxy.resolve("/healthz");
    this.session = session;
    this.worker = Thread.ofVirtual().name("berth-sidecar-check").start(this::run);
  }

  /** True once the sidecar answered for this session. */
  boolean ready() {
    return ready;
  }

  /** What the last check saw, for a not-ready answer. */
  String state() {
    return ready ? "the credential proxy sidecar is ready for session " + session.value() : state;
  }

  private void run() {
    while (!ready) {
      check();
      if (ready) {
        return;
      }
      try {
        Thread.sleep(PERIOD);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void check() {
    try {
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(healthz).timeout(Duration.ofSeconds(2)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      if (answer.statusCode() != 200) {
        state = "the credential proxy sidecar answered HTTP " + answer.statusCode();
        return;
      }
      JsonNode body = JSON.readTree(answer.body());
      String bound = body.path("session").asString("");
      if (!bound.equals(session.value())) {
        state =
            "the credential proxy sidecar at "
                + healthz
                + " serves session \""
                + bound
                + "\", not "
                + session.value();
        return;
      }
      ready = true;
    } catch (IOException | RuntimeException e) {
      state = "the credential proxy sidecar at " + healthz + " does not answer: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    worker.interrupt();
    http.close();
  }
}
