package dev.berth.server.api;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.lifecycle.Failpoints;
import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests no HTTP client would send, written on a raw socket: a body framed two ways at once
 * (request smuggling's opening move), and a body that arrives slower than the server waits for it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(TwoTenants.Shared.class)
class HttpFramingAttackTest {

  private TwoTenants t;

  @BeforeAll
  void target(TwoTenants target) {
    t = target;
  }

  @Test
  void aBodyWithBothContentLengthAndChunkedTransferEncodingIsABadRequest() throws IOException {
    String body = "{\"offset\":0}";
    String smuggled =
        "0\r\n\r\nGET /api/v1/admin/tenants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
            + TwoTenants.ADMIN
            + "\r\n\r\n";
    String request =
        "POST /api/v1/sessions/"
            + t.sessionB
            + "/read HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\n"
            + "Authorization: Bearer "
            + t.tokenB
            + "\r\n"
            + "Content-Type: application/json\r\n"
            + "Content-Length: "
            + body.length()
            + "\r\n"
            + "Transfer-Encoding: chunked\r\n"
            + "\r\n"
            + Integer.toHexString(body.length())
            + "\r\n"
            + body
            + "\r\n"
            + smuggled;

    String answer = exchange(request, Duration.ofSeconds(10));

    assertThat(answer).as(answer).startsWith("HTTP/1.1 400");
    assertThat(answer)
        .as("nothing after the refusal: no smuggled request was served")
        .doesNotContain("HTTP/1.1 200");
  }

  @Test
  void aBodyTrickledSlowerThanTheReadTimeoutIsCutWithA408WithinABound(@TempDir Path dataDir)
      throws IOException {
    Duration readTimeout = Duration.ofSeconds(2);
    String head =
        "POST /api/v1/sessions/"
            + "0".repeat(32)
            + "/keepalive HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\n"
            + "Authorization: Bearer "
            + TwoTenants.ADMIN
            + "\r\n"
            + "Content-Type: application/json\r\n"
            + "Content-Length: 1000\r\n"
            + "\r\n{";
    try (BerthServer server =
            new BerthServer(
                    new ServerConfig("127.0.0.1", 0, dataDir)
                        .withAdminToken(Optional.of(TwoTenants.ADMIN)),
                    Clock.systemUTC(),
                    Failpoints.NONE,
                    readTimeout)
                .start();
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
      socket.setSoTimeout((int) readTimeout.multipliedBy(5).toMillis());
      long started = System.nanoTime();
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(US_ASCII));
      out.flush();
      String answer = readAll(socket.getInputStream());
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      assertThat(took)
          .as("cut after %s", took)
          .isBetween(readTimeout.minusMillis(200), readTimeout.multipliedBy(3));
      assertThat(answer).as(answer).startsWith("HTTP/1.1 408");
      assertThat(answer).contains("\"reason\":\"REQUEST_TIMEOUT\"");
    } finally {
      TwoTenants.stopNode(dataDir);
    }
  }

  @Test
  void aBodyTheClientStopsSendingBeforeItsLengthIsABadRequestNotAServerError() throws IOException {
    String head =
        "POST /api/v1/sessions/"
            + t.sessionB
            + "/keepalive HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\n"
            + "Authorization: Bearer "
            + t.tokenB
            + "\r\n"
            + "Content-Type: application/json\r\n"
            + "Content-Length: 1000\r\n"
            + "\r\n{\"seconds\":";
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), t.port())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(head.getBytes(US_ASCII));
      socket.getOutputStream().flush();
      socket.shutdownOutput();

      String answer = readAll(socket.getInputStream());

      assertThat(answer).as(answer).startsWith("HTTP/1.1 400");
      assertThat(answer).contains("\"reason\":\"INVALID_INPUT\"").contains("ended before");
    }
  }

  private String exchange(String request, Duration timeout) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), t.port())) {
      socket.setSoTimeout((int) timeout.toMillis());
      socket.getOutputStream().write(request.getBytes(US_ASCII));
      socket.getOutputStream().flush();
      return readAll(socket.getInputStream());
    }
  }

  /** Everything the server sends until it closes, or until the socket's timeout. */
  private static String readAll(InputStream in) throws IOException {
    StringBuilder text = new StringBuilder();
    byte[] buffer = new byte[8192];
    try {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        text.append(new String(buffer, 0, n, US_ASCII));
      }
    } catch (SocketTimeoutException e) {
      text.append("\n(no close within the socket's timeout)");
    } catch (java.net.SocketException e) {
      // reset by the server: as good as a close
    }
    return text.toString();
  }
}
