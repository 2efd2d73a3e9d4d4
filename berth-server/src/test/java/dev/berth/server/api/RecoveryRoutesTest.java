package dev.berth.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real server whose archive store saw a newer store epoch than its store holds (a restore of an
 * older store backup) starts in recovery mode: creates refused, the findings shown to the admin,
 * the gauge at 1, until the admin approves.
 */
class RecoveryRoutesTest {

  private static final String ADMIN = "recovery-admin-token-" + "a".repeat(32);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path dataDir;
  private @Nullable BerthServer server;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @AfterEach
  void stopServerAndNode() throws Exception {
    if (server != null) {
      server.close();
    }
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

  private BerthServer start() {
    BerthServer started =
        new BerthServer(
                new ServerConfig("127.0.0.1", 0, dataDir).withAdminToken(Optional.of(ADMIN)))
            .start();
    server = started;
    return started;
  }

  @Test
  void aServerWhoseArchivesSawANewerEpochRefusesCreatesUntilTheAdminApproves() throws Exception {
    start().close();
    server = null;
    // The archives were written under epoch 1000: the store (now at 1) is older than they are.
    Files.writeString(dataDir.resolve("archives").resolve(".store-epoch"), "1000\n");
    BerthServer restarted = start();

    JsonNode found = json(send(restarted, "GET", "/api/v1/admin/recovery", null), 200);
    assertThat(found.path("active").asBoolean()).isTrue();
    assertThat(found.path("reason").asString()).contains("archives saw 1000");
    assertThat(found.path("storeEpoch").asLong()).isEqualTo(1);
    assertThat(found.path("since").asString()).isNotEmpty();
    assertThat(found.path("highWaterMarks").toString()).contains("\"archives\"").contains("1000");

    HttpResponse<String> refused =
        send(restarted, "POST", "/api/v1/sessions?wait=false", "{\"name\":\"refused\"}");
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(JSON.readTree(refused.body()).path("reason").asString()).isEqualTo("RECOVERY_MODE");
    assertThat(send(restarted, "GET", "/metrics", null).body()).contains("berth_recovery_mode 1.0");

    JsonNode approved = json(send(restarted, "POST", "/api/v1/admin/recovery/approve", "{}"), 200);
    assertThat(approved.path("active").asBoolean()).isFalse();
    assertThat(approved.path("approvedBy").asString()).isNotEmpty();
    HttpResponse<String> again = send(restarted, "POST", "/api/v1/admin/recovery/approve", "{}");
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(again.body()).path("reason").asString()).isEqualTo("NOT_IN_RECOVERY");
    assertThat(send(restarted, "GET", "/metrics", null).body()).contains("berth_recovery_mode 0.0");
    HttpResponse<String> created =
        send(restarted, "POST", "/api/v1/sessions?wait=false", "{\"name\":\"afterwards\"}");
    assertThat(created.statusCode()).as(created.body()).isIn(201, 202);
    JsonNode audit = json(send(restarted, "GET", "/api/v1/admin/audit?limit=100", null), 200);
    assertThat(audit.toString()).contains("recovery.approved");
  }

  @Test
  void aServerWithNothingNewerThanItsStoreIsNotInRecoveryModeAndApprovalIsRefused()
      throws Exception {
    BerthServer started = start();

    JsonNode found = json(send(started, "GET", "/api/v1/admin/recovery", null), 200);
    assertThat(found.path("active").asBoolean()).isFalse();
    assertThat(found.path("adoptedSessions")).isEmpty();
    assertThat(send(started, "POST", "/api/v1/admin/recovery/approve", "{}").statusCode())
        .isEqualTo(409);
  }

  private static JsonNode json(HttpResponse<String> answer, int status) {
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(status);
    return JSON.readTree(answer.body());
  }

  private HttpResponse<String> send(
      BerthServer to, String method, String path, @Nullable String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.port() + path))
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + ADMIN);
    if (body != null) {
      request.header("Content-Type", "application/json");
      request.method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
