package dev.berth.server.runtime.local;

import dev.berth.core.agent.DataPlane;
import dev.berth.core.agent.DataPlaneContract;
import dev.berth.core.archive.RestoreProgress;
import dev.berth.core.runtime.Runtime;
import dev.berth.protocol.node.NodeInfo;
import dev.berth.server.archive.none.NoArchiveStore;
import dev.berth.server.runtime.AgentWireDataPlane;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent protocol's data plane keeps the data-plane contract against a real node: real shells on
 * PTYs, real executions, the agent's own HTTP and WebSocket. One node for the class, stopped at the
 * end so that no process of the test outlives it.
 */
class LocalDataPlaneContractTest extends DataPlaneContract {
  private static final String INSTALLATION = "data-plane-contract";

  @TempDir static Path nodeDir;
  private static LocalNode node;

  @BeforeAll
  static void startNode() {
    node = new LocalNode(nodeDir, LocalNode.javaLaunchCommand(), Duration.ofSeconds(60));
    node.ensureRunning();
  }

  @AfterAll
  static void stopNode() {
    NodeInfo.read(nodeDir)
        .flatMap(info -> ProcessHandle.of(info.pid()))
        .ifPresent(
            process -> {
              process.destroy();
              process.onExit().completeOnTimeout(process, 20, TimeUnit.SECONDS).join();
              if (process.isAlive()) {
                process.destroyForcibly();
              }
            });
  }

  @Override
  protected Runtime runtime() {
    return new LocalRuntime(node, INSTALLATION);
  }

  @Override
  protected DataPlane dataPlane(Runtime runtime) {
    return new AgentWireDataPlane(
        (LocalRuntime) runtime, new NoArchiveStore(), new RestoreProgress(Clock.systemUTC()));
  }

  @Override
  protected String installation() {
    return INSTALLATION;
  }

  @Override
  protected Duration settlesWithin() {
    return Duration.ofSeconds(30);
  }
}
