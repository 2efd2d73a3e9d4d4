package dev.berth.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /sessions/{id}/read} passes the agent's capped answer through (issue 11): a read from
 * offset 0 of an output larger than the cap is a short read of at most 1 MiB whose {@code
 * nextOffset} continues exactly where it stopped, with the session and path in front. A real server
 * in this JVM and its real node and shell.
 */
class ReadRelayTest {

  private static final String TOKEN = "relay-admin-token-" + "x".repeat(32);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int CAP = 1 << 20;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dataDir;
  private BerthServer server;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void startServer() {
    server =
        new BerthServer(
                new ServerConfig("127.0.0.1", 0, dataDir).withAdminToken(Optional.of(TOKEN)))
            .start();
  }

  @AfterEach
  void stopServerAndNode() throws IOException {
    server.close();
    Path info = dataDir.resolve("node").resolve("node.json");
    if (Files.exists(info)) {
      long pid = JSON.readTree(Files.readString(info)).path("pid").asLong();
      ProcessHandle.of(pid)
          .ifPresent(
              node -> {
                node.destroy();
                node.onExit().orTimeout(30, TimeUnit.SECONDS).join();
              });
    }
  }

  @Test
  void aReadOfMoreThanTheCapIsAShortReadThatNextOffsetContinuesExactly() {
    String id = post("/sessions", "{\"name\":\"big\"}").path("id").asString();
    post(
        "/sessions/" + id + "/write",
        JSON.writeValueAsString(
            java.util.Map.of(
                "payload",
                "stty -echo; head -c 2600000 /dev/zero | tr '\\0' x; echo; echo done-$((6*7))\n")));
    await()
        .atMost(WAIT)
        .until(() -> walk(id, 0).toString(StandardCharsets.US_ASCII).contains("done-42"));

    JsonNode first = read(id, 0);

    assertThat(first.path("session").path("id").asString()).isEqualTo(id);
    assertThat(first.path("path").asString()).isEqualTo("active");
    assertThat(first.path("offset").asLong()).isZero();
    byte[] bytes = Base64.getDecoder().decode(first.path("payloadBase64").asString());
    assertThat(bytes).hasSize(CAP);
    assertThat(first.path("nextOffset").asLong()).isEqualTo(CAP);
    assertThat(first.path("payload").asString())
        .isEqualTo(new String(bytes, StandardCharsets.UTF_8));
    assertThat(first.path("reset").asBoolean()).isFalse();
    JsonNode second = read(id, CAP);
    assertThat(second.path("offset").asLong()).isEqualTo(CAP);
    String all = walk(id, 0).toString(StandardCharsets.US_ASCII);
    assertThat(all).contains("x".repeat(2_600_000) + "\r\ndone-42\r\n");
  }

  @Test
  void aCursorPastTheEndIsAnEmptyReadAtTheEnd() {
    String id = post("/sessions", "{\"name\":\"past\"}").path("id").asString();
    long end = walkEnd(id);

    JsonNode past = read(id, end + 1000);

    assertThat(past.path("payloadBase64").asString()).isEmpty();
    assertThat(past.path("nextOffset").asLong()).isGreaterThanOrEqualTo(end);
    assertThat(past.path("reset").asBoolean()).isTrue();
  }

  /** Every byte from {@code from} to the current end, read after read. */
  private ByteArrayOutputStream walk(String id, long from) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    long at = from;
    while (true) {
      JsonNode read = read(id, at);
      byte[] bytes = Base64.getDecoder().decode(read.path("payloadBase64").asString());
      assertThat(bytes.length).isLessThanOrEqualTo(CAP);
      if (bytes.length == 0) {
        return all;
      }
      assertThat(read.path("offset").asLong()).isEqualTo(at);
      all.writeBytes(bytes);
      at = read.path("nextOffset").asLong();
    }
  }

  private long walkEnd(String id) {
    long at = 0;
    while (true) {
      JsonNode read = read(id, at);
      if (read.path("payloadBase64").asString().isEmpty()) {
        return read.path("nextOffset").asLong();
      }
      at = read.path("nextOffset").asLong();
    }
  }

  private JsonNode read(String id, long offset) {
    return post("/sessions/" + id + "/read", "{\"offset\":" + offset + "}");
  }

  private JsonNode post(String path, String body) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/v1" + path))
            .timeout(Duration.ofMinutes(2))
            .header("Authorization", "Bearer " + TOKEN)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode())
          .as("%s answered %s", path, response.body())
          .isBetween(200, 201);
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
