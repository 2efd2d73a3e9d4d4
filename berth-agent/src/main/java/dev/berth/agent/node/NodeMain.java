package dev.berth.agent.node;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.http.AgentHttpServer;
import dev.berth.agent.isolation.NetworkMode;
import dev.berth.agent.isolation.ResourceLimits;
import dev.berth.agent.isolation.SandboxBind;
import dev.berth.agent.isolation.SandboxSettings;
import dev.berth.protocol.files.NotPrivateException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
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
    UnaryOperator<HostConfig> configure;
    try {
      configure = sandboxOptions(List.of(args).subList(0, Math.max(0, args.length - 1)));
    } catch (RuntimeException e) {
      System.err.println(e.getMessage());
      configure = null;
    }
    if (args.length < 1 || configure == null) {
      System.err.println(
          "usage: NodeMain [--network none|egress] [--sandbox-bind SRC[:DST][:ro]]..."
              + " [--sandbox-mask PATH]... [--cpu MILLIS] [--max-disk BYTES] <state-dir>");
      System.exit(2);
      return; // not reached
    }
    try {
      run(Path.of(args[args.length - 1]), AgentHttpServer.Settings.loopback(0), configure);
    } catch (NodeAlreadyRunningException e) {
      System.err.println(e.getMessage());
      System.exit(3);
    } catch (NotPrivateException e) {
      // One line in node.log, which the control plane names when the node does not come up.
      System.err.println("berth node: " + e.getMessage());
      System.exit(1);
    }
  }

  /**
   * The sandbox options the control plane passes on ({@code --network}, {@code --sandbox-bind},
   * {@code --sandbox-mask}, {@code --cpu}, {@code --max-disk}), as a change to the host's config.
   *
   * @throws IllegalArgumentException when an option is unknown or its value is bad
   */
  static UnaryOperator<HostConfig> sandboxOptions(List<String> options) {
    Optional<NetworkMode> network = Optional.empty();
    List<SandboxBind> binds = new ArrayList<>();
    List<Path> masks = new ArrayList<>();
    OptionalInt cpu = OptionalInt.empty();
    OptionalLong disk = OptionalLong.empty();
    for (int i = 0; i < options.size(); i += 2) {
      String name = options.get(i);
      if (i + 1 >= options.size()) {
        throw new IllegalArgumentException("option " + name + " needs a value");
      }
      String value = options.get(i + 1);
      switch (name) {
        case "--network" -> network = Optional.of(NetworkMode.parse(value));
        case "--sandbox-bind" -> binds.add(SandboxBind.parse(value));
        case "--sandbox-mask" -> masks.add(Path.of(value));
        case "--cpu" -> cpu = OptionalInt.of(Integer.parseInt(value));
        case "--max-disk" -> disk = OptionalLong.of(bytes(name, value));
        default -> throw new IllegalArgumentException("unknown option " + name);
      }
    }
    SandboxSettings settings = new SandboxSettings(network, binds, masks);
    OptionalInt cpuMillis = cpu;
    OptionalLong diskBytes = disk;
    return config -> {
      HostConfig sandboxed = config.withSandbox(settings);
      ResourceLimits limits = sandboxed.limits();
      if (cpuMillis.isPresent()) {
        limits = limits.withCpuMillis(cpuMillis.getAsInt());
      }
      if (diskBytes.isPresent()) {
        limits = limits.withMaxDiskBytes(diskBytes.getAsLong());
      }
      return sandboxed.withLimits(limits);
    };
  }

  private static long bytes(String option, String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          option + " takes a number of bytes (such as 10737418240), was \"" + value + "\"");
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
