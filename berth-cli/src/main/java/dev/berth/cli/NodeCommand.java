package dev.berth.cli;

import dev.berth.agent.contract.DisconnectPolicy;
import dev.berth.agent.http.AgentHttpServer;
import dev.berth.agent.node.NodeAlreadyRunningException;
import dev.berth.agent.node.NodeMain;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code berth node}: the local session host. The server starts one by itself when it needs it;
 * running it by hand is for operators who want it under their own supervisor.
 */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description =
        "Runs the local session host (one sandboxed shell per session) until SIGTERM or SIGINT;"
            + " node status and node stop look after the one the server started.",
    subcommands = {NodeControl.Status.class, NodeControl.Stop.class})
final class NodeCommand implements Callable<Integer> {

  @Spec private CommandSpec spec;

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      defaultValue = "${sys:user.home}/.berth/node",
      description = "The node's state directory (default: ${DEFAULT-VALUE}).")
  private Path stateDir;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:0",
      converter = ServerCommand.ListenAddressConverter.class,
      description = "Address to listen on; port 0 picks a free one (default: ${DEFAULT-VALUE}).")
  private ListenAddress listen;

  @Option(
      names = "--disconnect-policy",
      paramLabel = "continue|stop",
      defaultValue = "continue",
      description =
          "When the control plane stops renewing a session's lease: keep the session for the"
              + " grace period, or stop it at once (default: ${DEFAULT-VALUE}).")
  private String disconnectPolicy;

  @Option(
      names = "--disconnect-grace",
      paramLabel = "DURATION",
      defaultValue = "15m",
      converter = DurationConverter.class,
      description = "How long a session keeps running without its control plane (default: 15m).")
  private Duration disconnectGrace;

  @Option(
      names = "--max-lifetime",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "Stop every session after this long, whatever the control plane says.")
  private @Nullable Duration maxLifetime;

  @Option(
      names = "--output-cap",
      paramLabel = "MIB",
      defaultValue = "64",
      description = "The cap of each shell's output log in MiB (default: ${DEFAULT-VALUE}).")
  private long outputCapMib;

  @Override
  public Integer call() throws InterruptedException {
    DisconnectPolicy policy;
    try {
      policy = DisconnectPolicy.parse(disconnectPolicy);
    } catch (RuntimeException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    try {
      NodeMain.run(
          stateDir,
          new AgentHttpServer.Settings(
              listen.host(), listen.port(), Duration.ofSeconds(15), Duration.ofMillis(100)),
          config ->
              config
                  .withDisconnect(policy, disconnectGrace, Optional.ofNullable(maxLifetime))
                  .withOutputCap(outputCapMib << 20));
      return 0;
    } catch (NodeAlreadyRunningException e) {
      spec.commandLine().getErr().println(e.getMessage());
      return 3;
    }
  }
}
