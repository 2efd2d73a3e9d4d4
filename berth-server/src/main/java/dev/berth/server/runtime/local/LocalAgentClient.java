package dev.berth.server.runtime.local;

import dev.berth.core.agent.AgentClient;
import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.AgentReply;
import dev.berth.core.agent.AgentStatus;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.server.runtime.AgentWireClient;
import java.time.Instant;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The agent protocol to sessions hosted by the local node. The node's address is resolved on every
 * call (it moves when the node restarts), never taken from a recorded endpoint.
 */
public final class LocalAgentClient implements AgentClient {

  private final LocalNode node;
  private final AgentWireClient wire = new AgentWireClient();

  public LocalAgentClient(LocalNode node) {
    this.node = node;
  }

  @Override
  public AgentStatus status(RuntimeRef runtime) {
    JsonNode status = call(runtime, "GET", "/status", Optional.empty(), Optional.empty()).json();
    return new AgentStatus(
        "running".equals(status.path("state").asString()),
        status.path("busy").asBoolean(false),
        status.path("acceptedIntentVersion").asLong(0),
        DesiredState.valueOf(status.path("acceptedDesired").asString("RUNNING")),
        status.path("tombstoned").asBoolean(false),
        Optional.ofNullable(status.get("lastOutputAt"))
            .filter(JsonNode::isString)
            .map(n -> Instant.parse(n.asString())));
  }

  @Override
  public AgentReply send(RuntimeRef runtime, AgentCommand command) {
    return switch (command) {
      case AgentCommand.Terminate terminate -> {
        call(runtime, "POST", "/terminate", Optional.empty(), Optional.of(terminate));
        yield new AgentReply.Accepted();
      }
      case AgentCommand.RenewLease renew -> {
        String body = "{\"ttlSeconds\":" + Math.max(1, renew.ttl().toSeconds()) + "}";
        call(runtime, "POST", "/lease", Optional.of(body), Optional.of(renew));
        yield new AgentReply.Accepted();
      }
      case AgentCommand.PrepareCheckpoint prepare -> throw checkpointsNotYet(runtime);
      case AgentCommand.AbortCheckpoint abort -> throw checkpointsNotYet(runtime);
      case AgentCommand.Restore restore -> throw checkpointsNotYet(runtime);
    };
  }

  private AgentWireClient.Answer call(
      RuntimeRef runtime,
      String method,
      String path,
      Optional<String> body,
      Optional<AgentCommand> command) {
    LocalNode.Connection connection = node.ensureRunning();
    String name = runtime.name();
    SessionId session = new SessionId(name.substring("berth-".length(), name.lastIndexOf('-')));
    return wire.call(
        name,
        method,
        LocalRuntime.sessionUrl(connection, session) + path + "?runtime=" + name,
        connection.token(),
        body,
        command.map(AgentCommand::context));
  }

  /** Snapshot and restore through the agent come with the archive work (issue 5). */
  private static UnsupportedOperationException checkpointsNotYet(RuntimeRef runtime) {
    return new UnsupportedOperationException(
        runtime.name()
            + ": the local node does not take checkpoints yet; suspend and resume of local"
            + " sessions arrive with the snapshot/restore work");
  }
}
