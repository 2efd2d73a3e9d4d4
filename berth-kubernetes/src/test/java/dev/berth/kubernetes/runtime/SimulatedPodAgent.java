package dev.berth.kubernetes.runtime;

import dev.berth.agent.host.AgentLaunch;
import dev.berth.agent.host.HostConfig;
import dev.berth.agent.http.AgentHttpServer;
import dev.berth.agent.node.PodWorkload;
import dev.berth.agent.node.SessionAgent;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The process a simulated pod runs: {@code berth agent} as the CLI starts it (the same {@link
 * SessionAgent#start} with the pod's arguments and its token from {@code BERTH_AGENT_TOKEN}), but
 * without picocli, which lives in berth-cli. It prints the port it listens on as its first line,
 * for the {@link KubeletSimulator}, and runs until it is killed.
 */
public final class SimulatedPodAgent {
  static final String LISTENING = "listening on port ";
  private static final String AWAIT_RESTORE = "--await-restore";

  private SimulatedPodAgent() {}

  /**
   * @param args the pod's container arguments: {@code agent --session <sid> --incarnation <n>
   *     --installation <id> --state-dir <dir> --listen <host>:<port> [--await-restore]}, and for an
   *     agent session {@code --workload <type> --agent-cli <path> --model <m> [--plugin
   *     name=path]... --proxy <url>}
   */
  public static void main(String[] args) throws InterruptedException {
    List<String> plugins = new java.util.ArrayList<>();
    List<String> rest = new java.util.ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--plugin")) {
        plugins.add(args[++i]);
      } else {
        rest.add(args[i]);
      }
    }
    Map<String, String> options = options(rest);
    String token = System.getenv(RuntimePods.TOKEN_VARIABLE);
    if (token == null) {
      throw new IllegalStateException(RuntimePods.TOKEN_VARIABLE + " is unset");
    }
    String listen = options.get("--listen");
    int colon = listen.lastIndexOf(':');
    SessionAgent agent =
        SessionAgent.start(
            new SessionId(options.get("--session")),
            Long.parseLong(options.get("--incarnation")),
            options.get("--installation"),
            options.containsKey(AWAIT_RESTORE),
            workload(options, plugins),
            HostConfig.defaults(Path.of(options.get("--state-dir")), token),
            new AgentHttpServer.Settings(
                listen.substring(0, colon),
                Integer.parseInt(listen.substring(colon + 1)),
                Duration.ofSeconds(15),
                Duration.ofMillis(100)));
    // As berth agent does: SIGTERM (a pod's deletion) closes the host, which unmounts its disks.
    java.lang.Runtime.getRuntime().addShutdownHook(new Thread(agent::close, "agent-shutdown"));
    System.out.println(LISTENING + agent.port());
    System.out.flush();
    Thread.currentThread().join();
  }

  /** The agent session the arguments name; none for a shell. */
  private static java.util.Optional<PodWorkload> workload(
      Map<String, String> options, List<String> plugins) {
    String type = options.getOrDefault("--workload", "shell");
    if (type.equals("shell")) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        new PodWorkload(
            type,
            options.get("--agent-cli"),
            options.get("--model"),
            plugins.stream()
                .map(
                    p ->
                        new AgentLaunch.Plugin(
                            p.substring(0, p.indexOf('=')), p.substring(p.indexOf('=') + 1)))
                .toList(),
            java.net.URI.create(options.get("--proxy")),
            java.util.Optional.ofNullable(options.get("--approval"))));
  }

  private static Map<String, String> options(List<String> args) {
    if (args.isEmpty() || !args.getFirst().equals("agent")) {
      throw new IllegalArgumentException("expected `agent --option value ...`, got " + args);
    }
    Map<String, String> options = new HashMap<>();
    for (int i = 1; i < args.size(); i++) {
      if (args.get(i).equals(AWAIT_RESTORE)) {
        options.put(AWAIT_RESTORE, "");
      } else {
        options.put(args.get(i), args.get(++i));
      }
    }
    return options;
  }
}
