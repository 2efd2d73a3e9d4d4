package dev.berth.agent.agentcli;

import java.nio.file.Path;

/**
 * Where an agent session keeps what it has, as its workload sees it: the state directory (archived
 * whole), the CLI's home inside it and the workspace the CLI works in.
 */
public record AgentPaths(Path state, Path home, Path workspace) {

  /** The layout under {@code state}: {@code home/} and {@code workspace/}. */
  public static AgentPaths under(Path state) {
    return new AgentPaths(state, state.resolve("home"), state.resolve("workspace"));
  }
}
