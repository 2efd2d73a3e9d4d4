package dev.berth.cli;

import dev.berth.agent.contract.DisconnectPolicy;
import dev.berth.agent.host.AgentLaunch;
import dev.berth.agent.host.HostConfig;
import dev.berth.agent.http.AgentHttpServer;
import dev.berth.agent.node.PodWorkload;
import dev.berth.agent.node.SessionAgent;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code berth agent}: hosts exactly one session (the pod case), until SIGTERM. */
@Command(
    name = "agent",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description =
        "Hosts exactly one session (a session's pod runs this); the bearer token comes from"
            + " the BERTH_AGENT_TOKEN environment variable.")
final class SessionAgentCommand implements Callable<Integer> {

  static final String TOKEN_VARIABLE = "BERTH_AGENT_TOKEN";

  @Spec private CommandSpec spec;

  @Option(names = "--session", required = true, description = "The session id (32 hex).")
  private String session;

  @Option(
      names = "--incarnation",
      defaultValue = "1",
      description = "The runtime's incarnation (default: ${DEFAULT-VALUE}).")
  private long incarnation;

  @Option(
      names = "--installation",
      required = true,
      description = "The id of the control plane installation that owns the session.")
  private String installation;

  @Option(
      names = "--await-restore",
      description =
          "The runtime is a resume's: start nothing and wait for the archive the control plane"
              + " sends.")
  private boolean awaitRestore;

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/berth",
      description = "The session's state directory (default: ${DEFAULT-VALUE}).")
  private Path stateDir;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = "0.0.0.0:8090",
      converter = ServerCommand.ListenAddressConverter.class,
      description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  private ListenAddress listen;

  @Option(
      names = "--workload",
      paramLabel = "TYPE",
      defaultValue = "shell",
      description =
          "The session's workload: shell (default) or an agent type (claude-code, codex,"
              + " minimax-code), whose credential proxy is the pod's sidecar (see --proxy).")
  private String workload;

  @Option(
      names = "--agent-cli",
      paramLabel = "PATH",
      description = "An agent session's CLI, its absolute path in this image.")
  private String agentCli;

  @Option(
      names = "--model",
      paramLabel = "MODEL",
      defaultValue = "platform-default",
      description = "The model an agent session's prompts ask for (default: the CLI's own).")
  private String model;

  @Option(
      names = "--plugin",
      paramLabel = "NAME=PATH",
      description = "A plugin of the agent session, with its absolute path in this image.")
  private java.util.Map<String, String> plugins = new java.util.LinkedHashMap<>();

  @Option(
      names = "--proxy",
      paramLabel = "URL",
      defaultValue = "http://127.0.0.1:8091",
      description =
          "Where an agent session's credential proxy sidecar answers (default:"
              + " ${DEFAULT-VALUE}, the pod's loopback); this agent never holds the provider's"
              + " token.")
  private java.net.URI proxy;

  @Option(
      names = "--approval",
      paramLabel = "POLICY",
      description =
          "The approval policy the proxy sidecar enforces (external or all), so that the CLI"
              + " declares no provider-run tool the gated sidecar would refuse; the sidecar alone"
              + " holds the gateway's key.")
  private @org.jspecify.annotations.Nullable String approval;

  @Option(
      names = "--disconnect-policy",
      paramLabel = "continue|stop",
      defaultValue = "continue",
      description =
          "When the control plane stops renewing the session's lease: keep the session for the"
              + " grace period, or stop it at once (default: ${DEFAULT-VALUE}); the control plane"
              + " passes its tenant's policy.")
  private String disconnectPolicy;

  @Option(
      names = "--disconnect-grace",
      paramLabel = "DURATION",
      defaultValue = "15m",
      converter = DurationConverter.class,
      description = "How long the session keeps running without its control plane (default: 15m).")
  private Duration disconnectGrace;

  @Override
  public Integer call() throws InterruptedException {
    DisconnectPolicy policy;
    try {
      policy = DisconnectPolicy.parse(disconnectPolicy);
    } catch (RuntimeException e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    String token = System.getenv(TOKEN_VARIABLE);
    if (token == null || token.length() < 32) {
      spec.commandLine()
          .getErr()
          .println(
              TOKEN_VARIABLE
                  + " must hold the bearer token the control plane minted (at least 32"
                  + " characters); it is "
                  + (token == null ? "unset" : token.length() + " characters long"));
      return 2;
    }
    java.util.Optional<PodWorkload> agentWorkload = java.util.Optional.empty();
    if (!workload.equals("shell")) {
      if (agentCli == null) {
        spec.commandLine()
            .getErr()
            .println("--workload " + workload + " needs --agent-cli PATH, its CLI in this image");
        return 2;
      }
      agentWorkload =
          java.util.Optional.of(
              new PodWorkload(
                  workload,
                  agentCli,
                  model,
                  plugins.entrySet().stream()
                      .map(e -> new AgentLaunch.Plugin(e.getKey(), e.getValue()))
                      .toList(),
                  proxy,
                  java.util.Optional.ofNullable(approval)));
    }
    SessionAgent agent =
        SessionAgent.start(
            new SessionId(session),
            incarnation,
            installation,
            awaitRestore,
            agentWorkload,
            HostConfig.defaults(stateDir, token)
                .withDisconnect(policy, disconnectGrace, java.util.Optional.empty()),
            new AgentHttpServer.Settings(
                listen.host(), listen.port(), Duration.ofSeconds(15), Duration.ofMillis(100)));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  agent.close();
                  stopped.countDown();
                },
                "berth-agent-shutdown"));
    spec.commandLine()
        .getOut()
        .println("berth agent for session " + session + " listening on port " + agent.port());
    spec.commandLine().getOut().flush();
    stopped.await();
    return 0;
  }
}
