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
 * The server dies as with SIGKILL (a failpoint halts it) at each step of a restore, in one run
 * together with its node; then it restarts. The session must end restored into exactly one runtime,
 * with its output and its shell's state back.
 */
class ResumeCrashIT {

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
  @ValueSource(strings = {"start.create-runtime", "resume.restore", "start.before-ready"})
  void aServerKilledDuringARestoreEndsWithOneRestoredRuntime(String failpoint) {
    crashDuringRestore(failpoint, false);
  }

  @Test
  void aNodeKilledWithTheServerWhileTheArchiveStreamsEndsWithOneRestoredRuntime() {
    crashDuringRestore("resume.restore", true);
  }

  private void crashDuringRestore(String failpoint, boolean nodeToo) {
    String id = steps.suspendedSessionWithWork();
    ServerProcess dying = ServerProcess.start(dataDir, Map.of("BERTH_FAILPOINTS", failpoint));
    CrashSteps.crashDuring(
        dying, failpoint, api -> api.post("/sessions/" + id + "/read", "{\"offset\":0}"));
    if (nodeToo) {
      ServerProcess.killNode(dataDir);
    }

    try (ServerProcess restarted = ServerProcess.start(dataDir, Map.of())) {
      Api after = new Api(restarted.baseUrl(), ServerProcess.ADMIN_TOKEN);
      CrashSteps.awaitState(after, id, "active");
      steps.assertWorkIntact(after, id);
    }
  }
}
