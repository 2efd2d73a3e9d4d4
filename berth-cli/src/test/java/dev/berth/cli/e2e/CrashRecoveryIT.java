package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * The server dies as with SIGKILL (a failpoint halts the process at a protocol step) during
 * provisioning or termination, then restarts: the session converges, no runtime is duplicated and
 * none is orphaned.
 */
class CrashRecoveryIT {

  private static final Duration CONVERGE = Duration.ofSeconds(60);

  @TempDir Path work;
  private Path dataDir;

  @AfterEach
  void stopNode() {
    ServerProcess.killNode(dataDir);
  }

  @ParameterizedTest
  @ValueSource(strings = {"start.create-runtime", "start.before-ready"})
  void aServerKilledWhileProvisioningFinishesTheSessionAfterARestart(String failpoint) {
    dataDir = work.resolve("data");
    ServerProcess dying = ServerProcess.start(dataDir, Map.of("BERTH_FAILPOINTS", failpoint));
    CrashSteps.crashDuring(
        dying, failpoint, api -> api.post("/sessions?wait=false", "{\"name\":\"crash\"}"));

    try (ServerProcess restarted = ServerProcess.start(dataDir, Map.of())) {
      Api after = new Api(restarted.baseUrl(), ServerProcess.ADMIN_TOKEN);
      JsonNode listed = after.get("/sessions").json().path("sessions");
      assertThat(listed).as("the session recorded before the crash").hasSize(1);
      String id = listed.get(0).path("id").asString();
      await()
          .atMost(CONVERGE)
          .until(
              () -> after.get("/sessions/" + id).json().path("phase").asString().equals("READY"));

      JsonNode session = after.get("/sessions/" + id).json();
      List<JsonNode> runtimes = ServerProcess.nodeRuntimes(dataDir);
      assertThat(runtimes).hasSize(1);
      assertThat(runtimes.get(0).path("runtime").asString())
          .isEqualTo(session.path("pod").asString());
      after.post("/sessions/" + id + "/write", "{\"payload\":\"echo back-$((5*5))\\n\"}");
      await().atMost(CONVERGE).until(() -> after.text(id, 0).contains("back-25"));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"terminate.remove-runtime", "terminate.after-remove"})
  void aServerKilledWhileTerminatingFinishesTheTerminationAfterARestart(String failpoint) {
    dataDir = work.resolve("data");
    String id;
    try (ServerProcess first = ServerProcess.start(dataDir, Map.of())) {
      id = new Api(first.baseUrl(), ServerProcess.ADMIN_TOKEN).create("doomed");
    }
    ServerProcess dying = ServerProcess.start(dataDir, Map.of("BERTH_FAILPOINTS", failpoint));
    CrashSteps.crashDuring(dying, failpoint, api -> api.delete("/sessions/" + id));

    try (ServerProcess restarted = ServerProcess.start(dataDir, Map.of())) {
      Api after = new Api(restarted.baseUrl(), ServerProcess.ADMIN_TOKEN);
      await()
          .atMost(CONVERGE)
          .until(() -> after.deleted(id).path("phase").asString().equals("TERMINATED"));
      assertThat(after.deleted(id).path("state").asString()).isEqualTo("deleted");

      JsonNode session = after.deleted(id);
      assertThat(session.path("reservation").asString()).isEqualTo("RELEASED");
      assertThat(ServerProcess.nodeRuntimes(dataDir)).isEmpty();
      // The deletion was accepted before the crash: the session is gone from its own routes.
      assertThat(after.delete("/sessions/" + id).status()).isEqualTo(404);
    }
  }
}
