package dev.berth.server.runtime.local;

import dev.berth.core.agent.AgentClient;
import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.AgentReply;
import dev.berth.core.agent.AgentStatus;
import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.server.runtime.AgentEndpoints;
import dev.berth.server.runtime.AgentWireClient;
import dev.berth.server.runtime.ArchiveTransfer;
import dev.berth.server.runtime.RestoreProgress;
import java.time.Instant;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The agent protocol to sessions hosted by the local node. The node's address comes from {@link
 * LocalNode} (found again when the node restarts or a call fails), never from a recorded endpoint.
 */
public final class LocalAgentClient implements AgentClient {

  private final LocalNode node;
  private final AgentEndpoints endpoints;
  private final ArchiveStore archives;
  private final AgentWireClient wire = new AgentWireClient();
  private final ArchiveTransfer transfer;

  /**
   * @param endpoints resolves a runtime's agent (the local runtime itself)
   * @param archives where checkpoints are committed and restores read from
   */
  public LocalAgentClient(LocalNode node, AgentEndpoints endpoints, ArchiveStore archives) {
    this(node, endpoints, archives, new RestoreProgress(java.time.Clock.systemUTC()));
  }

  /**
   * @param progress where restores report the bytes they have streamed
   */
  public LocalAgentClient(
      LocalNode node, AgentEndpoints endpoints, ArchiveStore archives, RestoreProgress progress) {
    this.node = node;
    this.endpoints = endpoints;
    this.archives = archives;
    this.transfer = new ArchiveTransfer(progress);
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
      case AgentCommand.PrepareCheckpoint prepare ->
          new AgentReply.CheckpointTaken(
              transfer.checkpoint(
                  endpoints.resolve(runtime), prepare.context(), prepare.generation(), archives));
      case AgentCommand.AbortCheckpoint abort -> {
        transfer.abort(endpoints.resolve(runtime), abort.context(), abort.generation());
        yield new AgentReply.Accepted();
      }
      case AgentCommand.Restore restore -> {
        transfer.restore(
            endpoints.resolve(runtime), restore.context(), restore.archive(), archives);
        yield new AgentReply.Accepted();
      }
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
    try {
      return wire.call(
          name,
          method,
          LocalRuntime.sessionUrl(connection, session) + path + "?runtime=" + name,
          connection.token(),
          body,
          command.map(AgentCommand::context));
    } catch (dev.berth.core.error.AgentUnreachableException e) {
      node.forget(); // the next call finds the node again
      throw e;
    }
  }
}
