package dev.berth.agent.node;

import dev.berth.protocol.node.NodeInfo;
import java.nio.file.Path;
import java.util.Optional;

/** Another node holds the state directory: there is one node per directory. */
public final class NodeAlreadyRunningException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NodeAlreadyRunningException(Path directory, Optional<NodeInfo> running) {
    super(
        "another berth node already runs on "
            + directory
            + running.map(info -> " (pid " + info.pid() + ", " + info.baseUrl() + ")").orElse("")
            + "; use it, or stop it before starting a new one");
  }
}
