package dev.berth.cli.e2e;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server dies as with SIGKILL (a failpoint halts it) at each step of a suspend, in one run
 * together with its node; then it restarts. The session must end fully suspended with its work
 * intact: never a torn archive, never a runtime removed behind an archive that was not committed,
 * never two live runtimes.
 */
class SuspendCrashIT {

  @TempDir Path work;
  private Path dataDir;
  private CrashSteps steps;

  @BeforeEach
  void dataDirectory() {
    dataDir = work.resolve("data");
    steps = new CrashSteps(dataDir);
  }

  @AfterEach
  void stopNode() {
    ServerProcess.killNode(dataDir);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "suspend.prepare",
        "suspend.before-commit-record",
        "suspend.after-commit",
        "suspend.remove-runtime",
        "suspend.after-remove"
      })
  void aServerKilledDuringASuspendEndsWithTheSessionSuspendedAndItsWorkIntact(String failpoint) {
    crashDuringSnapshot(failpoint, false);
  }

  @Test
  void aNodeKilledWithTheServerBeforeTheCheckpointStillEndsWithTheSessionSuspended() {
    crashDuringSnapshot("suspend.prepare", true);
  }

  private void crashDuringSnapshot(String failpoint, boolean nodeToo) {
    // The suspend's failpoints are not on the way of a create: the dying server sets up too.
    ServerProcess dying = ServerProcess.start(dataDir, Map.of("BERTH_FAILPOINTS", failpoint));
    String id = CrashSteps.sessionWithWork(dying);
    CrashSteps.crashDuring(dying, failpoint, api -> api.post("/sessions/" + id + "/snapshot", ""));
    if (nodeToo) {
      ServerProcess.killNode(dataDir);
    }

    try (ServerProcess restarted = ServerProcess.start(dataDir, Map.of())) {
      Api after = new Api(restarted.baseUrl(), ServerProcess.ADMIN_TOKEN);
      CrashSteps.awaitState(after, id, "snapshot");
      steps.assertSuspendedCleanly(after, id);
      steps.assertWorkIntact(after, id);
    }
  }
}
