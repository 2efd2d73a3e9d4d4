package dev.berth.agent.agentcli;

import java.nio.file.Path;

/**
 * Where an agent session keeps what it has: its state directory (archived whole; the conversation
 * and the transcript live here, where the workload cannot touch them), the CLI's home (the only
 * part the workload may write) and the workspace inside it, where the CLI works.
 */
public record AgentPaths(Path state, Path home, Path workspace) {

  /** Where a sandboxed CLI sees its home. */
  public static final Path SANDBOX_HOME = Path.of("/home/berth");

  /** Where, in the home, a session's copies of its marketplace plugins are, one directory each. */
  public static final String PLUGINS = ".berth/plugins";

  /** The folder of the session's plugin copies. */
  public Path plugins() {
    return home.resolve(PLUGINS);
  }

  /** The host's layout under {@code state}: {@code home/} and {@code home/workspace/}. */
  public static AgentPaths under(Path state) {
    Path home = state.resolve("home");
    return new AgentPaths(state, home, home.resolve("workspace"));
  }

  /** The same layout as a sandboxed CLI sees it: its home at {@link #SANDBOX_HOME}. */
  public AgentPaths inSandbox() {
    return new AgentPaths(state, SANDBOX_HOME, SANDBOX_HOME.resolve(home.relativize(workspace)));
  }
}
