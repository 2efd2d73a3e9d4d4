package dev.berth.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.host.HostConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer of the live output that stops reading is disconnected once one write to it has waited
 * for the stall timeout (one second here), instead of holding the host's thread, log files and
 * buffers for as long as it likes; meanwhile the other sessions keep answering. Real shells, real
 * sockets: the stalled clients have small receive buffers and read nothing, so the host's writes
 * block as soon as the kernel's buffers are full.
 */
class StalledConsumersTest {

  private static final String TOKEN = "t".repeat(64);
  private static final String A = "a".repeat(32);
  private static final String B = "b".repeat(32);
  private static final Duration STALL = Duration.ofSeconds(1);
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path root;
  private RunningHost running;
  private AgentApi api;
  private long end;

  @BeforeEach
  void startHostWithALargeLog() {
    running = RunningHost.start(HostConfig.defaults(root, TOKEN), STALL);
    api = running.api();
    for (String session : new String[] {A, B}) {
      AgentApi.Answer provisioned = api.provision(session, 1);
      assertThat(provisioned.status()).as(provisioned.body()).isEqualTo(201);
    }
    // Far more than the socket buffers between the host and a stalled client hold (about 16 MB).
    api.input(
        A, "stty -echo; head -c 15000000 /dev/urandom | base64 -w 0; echo; echo big-$((6*7))\n");
    await().atMost(WAIT).until(() -> tail(A).contains("big-42"));
    end = api.end(A);
    assertThat(end).isGreaterThan(20_000_000);
  }

  @AfterEach
  void stopHost() {
    running.close();
  }

  @Test
  void anSseClientThatStopsReadingIsDisconnectedWhileAnotherSessionKeepsAnswering()
      throws Exception {
    try (Socket stalled = stalledClient("/stream?offset=0", "")) {

      assertThat(answer(B, "echo while-stalled-$((2*3))", "while-stalled-6")).isNotEmpty();
      await().atMost(WAIT).until(() -> running.server().stalledDisconnects() == 1);

      // What the kernel still held for it arrives, then the end: the stream was cut short.
      long received = drain(stalled);
      assertThat(received).isLessThan(end);
    }
    assertThat(answer(B, "echo after-$((3*3))", "after-9")).isNotEmpty();
    try (AgentApi.Stream again = api.stream(A, "?offset=" + (end - 10), Optional.empty())) {
      assertThat(again.status).isEqualTo(200);
      assertThat(nextOutput(again).json().path("offset").asLong()).isEqualTo(end - 10);
    }
  }

  @Test
  void anAttachClientThatStopsReadingIsDisconnectedWhileAnotherSessionKeepsAnswering()
      throws Exception {
    // A raw socket rather than the JDK client: its receive buffer is fixed small before it
    // connects,
    // so the kernel cannot grow it (up to tcp_rmem's 32 MB here) and swallow the whole log.
    try (Socket stalled =
        stalledClient(
            "/attach?offset=0",
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\n")) {

      assertThat(answer(B, "echo while-stalled-$((2*3))", "while-stalled-6")).isNotEmpty();
      await().atMost(WAIT).until(() -> running.server().stalledDisconnects() == 1);

      long received = drain(stalled);
      assertThat(received).isLessThan(end);
    }
    assertThat(answer(B, "echo after-$((3*3))", "after-9")).isNotEmpty();
    AttachClient again = api.attach(A, "?offset=" + (end - 10), false);
    try {
      await().atMost(WAIT).until(() -> again.outputSize() >= 10);
      assertThat(again.output()).startsWith(api.bytes(A, end - 10, end));
    } finally {
      again.disconnect();
    }
  }

  /**
   * A client of session A's {@code route} that sends its request and never reads. A raw socket
   * rather than the JDK client: its receive buffer is fixed small before it connects, so the kernel
   * cannot grow it (up to tcp_rmem's 32 MB here) and swallow the whole log.
   */
  @SuppressWarnings("AddressSelection") // an address literal: nothing is resolved
  private Socket stalledClient(String route, String headers) throws IOException {
    Socket stalled = new Socket();
    stalled.setReceiveBufferSize(4096);
    stalled.connect(new InetSocketAddress("127.0.0.1", running.server().port()));
    stalled
        .getOutputStream()
        .write(
            ("GET /v1/sessions/"
                    + A
                    + route
                    + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + headers
                    + "Authorization: Bearer "
                    + TOKEN
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    return stalled;
  }

  /**
   * Runs {@code command} in {@code session}; the output from then on, once it shows {@code result}.
   */
  private String answer(String session, String command, String result) {
    long cursor = api.end(session);
    api.input(session, command + "\n");
    await().atMost(WAIT).until(() -> api.text(session, cursor).contains(result + "\r\n"));
    return api.text(session, cursor);
  }

  /** Reads until the host ends the connection; the count of bytes received. */
  private static long drain(Socket socket) throws IOException {
    socket.setSoTimeout((int) WAIT.toMillis());
    InputStream in = socket.getInputStream();
    byte[] buffer = new byte[1 << 16];
    long total = 0;
    try {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        total += n;
      }
    } catch (SocketException reset) {
      // A reset is an end too: the host closed with bytes the client never took.
    }
    return total;
  }

  private static AgentApi.Event nextOutput(AgentApi.Stream stream) throws Exception {
    while (true) {
      AgentApi.Event event = stream.next().orElseThrow();
      if (event.type().equals("output")) {
        return event;
      }
    }
  }

  private String tail(String session) {
    return api.text(session, Math.max(0, api.end(session) - 100));
  }
}
