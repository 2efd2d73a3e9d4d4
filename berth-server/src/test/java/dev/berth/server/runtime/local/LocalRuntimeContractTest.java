package dev.berth.server.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeContract;
import dev.berth.protocol.node.NodeInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local runtime keeps the runtime contract against a real node: a separate JVM hosting real
 * shells, one node for the whole class because a node takes seconds to start. Lost contact is a
 * hung node (SIGSTOP), whose runtimes live on; the node is continued and stopped at the end, so
 * that no process of the test outlives it.
 */
class LocalRuntimeContractTest extends RuntimeContract {
  private static final String INSTALLATION = "contract-installation";
  private static final Duration NODE_START = Duration.ofSeconds(60);

  @TempDir static Path nodeDir;
  private static LocalNode node;

  @BeforeAll
  static void startNode() {
    node = new LocalNode(nodeDir, LocalNode.javaLaunchCommand(), NODE_START);
    node.ensureRunning();
  }

  @AfterAll
  static void stopNode() throws Exception {
    Optional<ProcessHandle> process =
        NodeInfo.read(nodeDir).flatMap(info -> ProcessHandle.of(info.pid()));
    if (process.isPresent()) {
      ProcessHandle nodeProcess = process.get();
      // A failed test may have left it stopped, and a stopped JVM never handles SIGTERM.
      signal("CONT", nodeProcess.pid());
      nodeProcess.destroy();
      nodeProcess.onExit().completeOnTimeout(nodeProcess, 20, TimeUnit.SECONDS).join();
      if (nodeProcess.isAlive()) {
        nodeProcess.destroyForcibly();
        throw new AssertionError("the node did not stop within 20 s of SIGTERM; killed it");
      }
    }
  }

  @Override
  protected Runtime newRuntime() {
    return new LocalRuntime(node, INSTALLATION);
  }

  @Override
  protected String installation() {
    return INSTALLATION;
  }

  @Override
  protected Duration settlesWithin() {
    return Duration.ofSeconds(30);
  }

  @Override
  protected Runtime restarted() {
    return new LocalRuntime(
        new LocalNode(nodeDir, LocalNode.javaLaunchCommand(), NODE_START), INSTALLATION);
  }

  @Override
  protected Optional<Neighbour> neighbour() {
    return Optional.of(
        new Neighbour("neighbour-installation", new LocalRuntime(node, "neighbour-installation")));
  }

  /**
   * Stops the node's JVM (its shells run on) and drops the cached connection to it, as the agent
   * client does after a failed call: the calls then meet the hung node through its health probe and
   * a start attempt, as every call after the first does, not through one request timeout.
   */
  @Override
  protected Optional<AutoCloseable> loseContact() throws Exception {
    long pid = NodeInfo.read(nodeDir).orElseThrow().pid();
    signal("STOP", pid);
    node.forget();
    return Optional.of(
        () -> {
          signal("CONT", pid);
          node.forget();
        });
  }

  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -%s %s", signal, pid).isZero();
  }
}
