package dev.berth.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The kept connections of the agent client, against a server on loopback that offers keep-alive and
 * then closes each connection once it answered: what the node does when its idle timeout ends a
 * connection, or when it restarts.
 */
class BlockingAgentHttpTest {

  private final AtomicInteger connections = new AtomicInteger();
  private ServerSocket server;
  private Thread acceptor;

  @AfterEach
  void stop() throws Exception {
    server.close();
    acceptor.join(5_000);
  }

  @Test
  void aKeptConnectionTheAgentClosedWhileIdleIsDialledAgainRatherThanFailingTheCall()
      throws Exception {
    startClosingServer(Duration.ofMillis(100));
    try (BlockingAgentHttp http =
        new BlockingAgentHttp(Duration.ofSeconds(5), AgentCallTimings.NONE)) {
      assertThat(get(http)).isEqualTo("one");

      // Past the idle time after which a kept connection is checked before it is used again.
      Thread.sleep(1_500);

      assertThat(get(http)).isEqualTo("one");
      assertThat(connections).hasValue(2);
    }
  }

  @Test
  void connectionsInUseOneAfterTheOtherAreReusedNotDialledEachTime() throws Exception {
    startClosingServer(Duration.ofSeconds(30));
    try (BlockingAgentHttp http = new BlockingAgentHttp(Duration.ofSeconds(5), recording)) {
      for (int i = 0; i < 5; i++) {
        assertThat(get(http)).isEqualTo("one");
      }
      assertThat(connections).hasValue(1);
    }
    assertThat(told)
        .hasSize(5)
        .allSatisfy(call -> assertThat(call).startsWith("GET /v1/sessions/{id}/output 2xx "));
  }

  @Test
  void anExchangeThatGotNoAnswerIsToldAsAnError() throws Exception {
    startClosingServer(Duration.ofSeconds(30));
    server.close();
    try (BlockingAgentHttp http = new BlockingAgentHttp(Duration.ofSeconds(5), recording)) {
      assertThatThrownBy(() -> get(http)).isInstanceOf(IOException.class);
    }
    assertThat(told).singleElement().asString().startsWith("GET /v1/sessions/{id}/output error ");
  }

  /** What the client told of its exchanges: "method route outcome nanos", one per exchange. */
  private final List<String> told = new CopyOnWriteArrayList<>();

  private final AgentCallTimings recording =
      (method, route, outcome, nanos) ->
          told.add(method + " " + route + " " + outcome + " " + nanos);

  private String get(BlockingAgentHttp http) throws IOException {
    HttpGet request =
        new HttpGet(
            URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/sessions/ses_7/output"));
    return http.execute(request, response -> EntityUtils.toString(response.getEntity()));
  }

  /** Answers every request on a connection with "one", and closes it {@code after} going idle. */
  private void startClosingServer(Duration after) throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (!server.isClosed()) {
                    try {
                      Socket socket = server.accept();
                      connections.incrementAndGet();
                      Thread.ofPlatform().daemon().start(() -> serve(socket, after));
                    } catch (IOException closed) {
                      return;
                    }
                  }
                });
  }

  private static void serve(Socket socket, Duration idle) {
    try (socket) {
      socket.setSoTimeout((int) idle.toMillis());
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      while (readHead(in)) {
        out.write(
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n\r\none"
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } catch (IOException idleOrGone) {
      // The idle timeout: the connection is closed, as a server's idle timeout closes it.
    }
  }

  /** Reads a request head up to its blank line; false at the end of the stream. */
  private static boolean readHead(InputStream in) throws IOException {
    int matched = 0;
    int b;
    while ((b = in.read()) >= 0) {
      matched = (b == '\r' || b == '\n') ? matched + 1 : 0;
      if (matched == 4) {
        return true;
      }
    }
    return false;
  }
}
