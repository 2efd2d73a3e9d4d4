package dev.berth.agent.node;

import dev.berth.agent.files.NotPrivateException;
import dev.berth.agent.host.HostConfig;
import dev.berth.agent.http.AgentHttpServer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;

/**
 * The node's entry point for launchers that do not go through the {@code berth} command (the
 * control plane starts a node with its own classpath): {@code NodeMain <state-dir>}. It listens on
 * a free loopback port and runs until SIGTERM.
 */
public final class NodeMain {

  private NodeMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 1) {
      System.err.println("usage: NodeMain <state-dir>");
      System.exit(2);
    }
    try {
      run(Path.of(args[0]), AgentHttpServer.Settings.loopback(0), config -> config);
    } catch (NodeAlreadyRunningException e) {
      System.err.println(e.getMessage());
      System.exit(3);
    } catch (NotPrivateException e) {
      // One line in node.log, which the control plane names when the node does not come up.
      System.err.println("berth node: " + e.getMessage());
      System.exit(1);
    }
  }

  /** Starts a node and blocks until the process is asked to stop. */
  public static void run(
      Path stateDirectory, AgentHttpServer.Settings settings, UnaryOperator<HostConfig> configure)
      throws InterruptedException {
    NodeDaemon node = NodeDaemon.start(stateDirectory, settings, configure);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  node.close();
                  stopped.countDown();
                },
                "berth-node-shutdown"));
    System.out.println(
        "berth node listening on 127.0.0.1:" + node.port() + " for " + stateDirectory);
    System.out.flush();
    stopped.await();
  }
}
