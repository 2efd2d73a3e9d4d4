package dev.berth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BerthServerTest {

  @TempDir Path dataDir;

  @Test
  void healthzAnswersOkOverHttp() throws Exception {
    try (BerthServer server = new BerthServer(new ServerConfig("127.0.0.1", 0, dataDir)).start();
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      assertThat(server.port()).isPositive();

      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/healthz"))
              .timeout(Duration.ofSeconds(10))
              .GET()
              .build();
      HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
      assertThat(response.body()).isEqualTo("{\"status\":\"ok\"}");
    }
  }

  @Test
  void closeIsIdempotent() {
    BerthServer server = new BerthServer(new ServerConfig("127.0.0.1", 0, dataDir)).start();
    server.close();
    server.close();
    assertThatThrownBy(server::port).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void closeBeforeStartDoesNothing() {
    BerthServer server = new BerthServer(new ServerConfig("127.0.0.1", 0, dataDir));
    server.close();
    assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void configRejectsOutOfRangePortNamingTheValue() {
    assertThatThrownBy(() -> new ServerConfig("127.0.0.1", 70_000, dataDir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("70000");
    assertThatThrownBy(() -> new ServerConfig("127.0.0.1", -1, dataDir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> new ServerConfig(" ", 8080, dataDir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("host");
  }
}
