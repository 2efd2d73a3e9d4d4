package dev.berth.server.runtime;

import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.AgentReply;
import dev.berth.core.agent.AgentStatus;
import dev.berth.core.agent.AttachLink;
import dev.berth.core.agent.AttachPeer;
import dev.berth.core.agent.ByteStream;
import dev.berth.core.agent.DataPlane;
import dev.berth.core.agent.ExecutionReport;
import dev.berth.core.agent.RuntimeReport;
import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.RestoreProgress;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionRequest;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.PluginName;
import dev.berth.core.session.RuntimeRef;
import dev.berth.protocol.execution.ExecutionWire;
import dev.berth.protocol.wire.AgentEndpoints;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The data-plane port over the agent protocol (docs/agent-protocol.md), for every runtime whose
 * agent speaks it: the address of a runtime's agent comes from its {@link AgentEndpoints} on every
 * call, and a call that cannot reach the agent tells the endpoints so that the next call finds the
 * agent again (a restarted node listens on a new port).
 */
public final class AgentWireDataPlane implements DataPlane {

  /**
   * The status members a caller may see; the agent's own bookkeeping (intents, the contract's
   * operations) stays. The control lease is shown: its expiry, last renewal and disconnect policy
   * tell the caller what happens to the workload if the control plane goes away.
   */
  private static final List<String> PUBLISHED =
      List.of(
          "runtime",
          "incarnation",
          "workload",
          "state",
          "health",
          "shell",
          "busy",
          "foreground",
          "lastOutputAt",
          "stopReason",
          "lease",
          "isolation",
          "disk",
          "output");

  private final AgentEndpoints endpoints;
  private final ArchiveStore archives;
  private final ArchiveTransfer transfer;
  private final AgentWireClient wire;
  private final AgentStreams streams;
  private final AgentAttach attach = new AgentAttach();
  private final JsonMapper json = JsonMapper.builder().build();

  /**
   * @param archives where checkpoints are committed and restores read from
   * @param progress where restores report the bytes they have streamed
   */
  public AgentWireDataPlane(
      AgentEndpoints endpoints, ArchiveStore archives, RestoreProgress progress) {
    this(endpoints, archives, progress, AgentCallTimings.NONE);
  }

  /** As the other constructor, telling {@code timings} of each short exchange with an agent. */
  public AgentWireDataPlane(
      AgentEndpoints endpoints,
      ArchiveStore archives,
      RestoreProgress progress,
      AgentCallTimings timings) {
    this(endpoints, archives, progress, timings, StoreEpochStamp.none());
  }

  /** As the other constructors, stamping every command with the store's {@code epoch}. */
  public AgentWireDataPlane(
      AgentEndpoints endpoints,
      ArchiveStore archives,
      RestoreProgress progress,
      AgentCallTimings timings,
      StoreEpochStamp epoch) {
    this.wire = new AgentWireClient(timings, epoch);
    this.streams = new AgentStreams(timings);
    this.endpoints = endpoints;
    this.archives = archives;
    this.transfer = new ArchiveTransfer(progress, epoch);
  }

  /**
   * The highest store epoch the agent serving {@code runtime} saw on a control plane's request
   * (docs/agent-protocol.md): a pod's agent keeps its own.
   */
  public long storeEpochSeen(RuntimeRef runtime) {
    AgentEndpoints.Endpoint agent = endpoints.resolve(runtime);
    String session = agent.sessionUrl();
    // The host's route, beside the session-scoped ones: {host}/v1/sessions/<sid> -> {host}.
    String host = session.substring(0, Math.max(0, session.lastIndexOf("/v1/sessions/")));
    return wire.call(
            runtime.name(),
            "GET",
            host + "/v1/store-epoch",
            agent.token(),
            Optional.empty(),
            Optional.empty())
        .json()
        .path("storeEpoch")
        .asLong(0);
  }

  @Override
  public AgentStatus status(RuntimeRef runtime) {
    JsonNode status = statusOf(runtime);
    return new AgentStatus(
        "running".equals(status.path("state").asString()),
        status.path("busy").asBoolean(false),
        status.path("acceptedIntentVersion").asLong(0),
        DesiredState.valueOf(status.path("acceptedDesired").asString("RUNNING")),
        status.path("tombstoned").asBoolean(false),
        Optional.ofNullable(status.get("lastOutputAt"))
            .filter(JsonNode::isString)
            .map(n -> Instant.parse(n.asString())),
        Optional.ofNullable(status.get("stopReason"))
            .filter(JsonNode::isString)
            .map(JsonNode::asString));
  }

  @Override
  public AgentReply send(RuntimeRef runtime, AgentCommand command) {
    return reaching(
        runtime,
        agent ->
            switch (command) {
              case AgentCommand.Terminate terminate -> {
                command(agent, "/terminate", Optional.empty(), terminate);
                yield new AgentReply.Accepted();
              }
              case AgentCommand.RenewLease renew -> {
                String body = "{\"ttlSeconds\":" + Math.max(1, renew.ttl().toSeconds()) + "}";
                command(agent, "/lease", Optional.of(body), renew);
                yield new AgentReply.Accepted();
              }
              case AgentCommand.PrepareCheckpoint prepare ->
                  new AgentReply.CheckpointTaken(
                      transfer.checkpoint(
                          agent, prepare.context(), prepare.generation(), archives));
              case AgentCommand.AbortCheckpoint abort -> {
                transfer.abort(agent, abort.context(), abort.generation());
                yield new AgentReply.Accepted();
              }
              case AgentCommand.Restore restore -> {
                transfer.restore(agent, restore.context(), restore.archive(), archives);
                yield new AgentReply.Accepted();
              }
            });
  }

  @Override
  public void input(RuntimeRef runtime, byte[] bytes) {
    reaching(
        runtime,
        agent ->
            wire.call(
                agent.runtimeName(),
                "POST",
                agent.url("/input", ""),
                agent.token(),
                Optional.of(bytes),
                "application/octet-stream",
                Optional.empty()));
  }

  @Override
  public ByteStream read(RuntimeRef runtime, long offset) {
    return reaching(runtime, agent -> streams.read(agent, offset));
  }

  @Override
  public ByteStream stream(RuntimeRef runtime, StreamFrom from) {
    return reaching(runtime, agent -> streams.stream(agent, "/stream", from));
  }

  @Override
  public ByteStream executionOutput(RuntimeRef runtime, ExecutionId execution, StreamFrom from) {
    return reaching(
        runtime,
        agent -> streams.stream(agent, "/executions/" + execution.value() + "/stream", from));
  }

  @Override
  public AttachLink attach(RuntimeRef runtime, OptionalLong offset, AttachPeer client) {
    String query = offset.isPresent() ? "offset=" + offset.getAsLong() : "";
    return reaching(runtime, agent -> attach.open(agent, query, client));
  }

  @Override
  public RuntimeReport report(RuntimeRef runtime) {
    JsonNode status = statusOf(runtime);
    Map<String, Object> published = new LinkedHashMap<>();
    for (String member : PUBLISHED) {
      JsonNode value = status.get(member);
      if (value != null && !value.isNull()) {
        published.put(member, json.treeToValue(value, Object.class));
      }
    }
    // The shell's host process id means nothing to a caller and tells it about the host.
    if (published.get("shell") instanceof Map<?, ?> shell) {
      Map<Object, Object> withoutPid = new LinkedHashMap<>(shell);
      withoutPid.remove("pid");
      published.put("shell", withoutPid);
    }
    return new RuntimeReport(
        status.path("busy").asBoolean(false),
        status.path("executionRunning").asBoolean(false),
        published);
  }

  @Override
  public ExecutionReport startExecution(RuntimeRef runtime, ExecutionRequest request) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("command", request.command());
    request.timeout().ifPresent(t -> body.put("timeoutSeconds", t.toSeconds()));
    return executionOf(runtime, call(runtime, "POST", "/executions", Optional.of(body)));
  }

  @Override
  public List<ExecutionReport> executions(RuntimeRef runtime) {
    return call(runtime, "GET", "/executions", Optional.empty())
        .path("executions")
        .valueStream()
        .map(e -> executionOf(runtime, e))
        .toList();
  }

  @Override
  public ExecutionReport execution(RuntimeRef runtime, ExecutionId execution) {
    return executionOf(
        runtime, call(runtime, "GET", "/executions/" + execution.value(), Optional.empty()));
  }

  @Override
  public ExecutionReport prompt(
      RuntimeRef runtime, String prompt, Optional<String> permissionMode) {
    String query =
        permissionMode
            .map(m -> "permissionMode=" + URLEncoder.encode(m, StandardCharsets.UTF_8))
            .orElse("");
    JsonNode answer =
        reaching(
            runtime,
            agent ->
                wire.call(
                        agent.runtimeName(),
                        "POST",
                        agent.url("/prompts", query),
                        agent.token(),
                        Optional.of(prompt.getBytes(StandardCharsets.UTF_8)),
                        "text/plain; charset=utf-8",
                        Optional.empty())
                    .json());
    return executionOf(runtime, answer.path("execution"));
  }

  @Override
  public List<PluginName> refreshPlugins(RuntimeRef runtime) {
    JsonNode answer = call(runtime, "POST", "/plugins/refresh", Optional.empty());
    return answer.path("plugins").valueStream().map(p -> new PluginName(p.asString())).toList();
  }

  @Override
  public TranscriptPage transcript(RuntimeRef runtime, long cursor, int limit) {
    JsonNode page =
        reaching(
            runtime,
            agent ->
                wire.call(
                        agent.runtimeName(),
                        "GET",
                        agent.url("/transcript", "cursor=" + cursor + "&limit=" + limit),
                        agent.token(),
                        Optional.<String>empty(),
                        Optional.empty())
                    .json());
    List<String> entries =
        page.path("entries").valueStream().map(json::writeValueAsString).toList();
    return new TranscriptPage(entries, page.path("nextCursor").asLong(cursor + entries.size()));
  }

  @Override
  public ByteStream transcriptStream(RuntimeRef runtime, StreamFrom from) {
    return reaching(runtime, agent -> streams.stream(agent, "/transcript/stream", from));
  }

  @Override
  public ExecutionReport cancelExecution(RuntimeRef runtime, ExecutionId execution) {
    return executionOf(
        runtime,
        call(runtime, "POST", "/executions/" + execution.value() + "/cancel", Optional.empty()));
  }

  /**
   * An agent whose Execution this release cannot read answered badly: 502, not the caller's 4xx.
   */
  private static ExecutionReport executionOf(RuntimeRef runtime, JsonNode body) {
    try {
      return ExecutionWire.read(body);
    } catch (IllegalArgumentException | java.time.DateTimeException | InvalidValueException e) {
      throw new AgentUnreachableException(
          runtime.name(), "it answered an Execution this control plane cannot read: " + e, e);
    }
  }

  private JsonNode statusOf(RuntimeRef runtime) {
    return call(runtime, "GET", "/status", Optional.empty());
  }

  private JsonNode call(RuntimeRef runtime, String method, String path, Optional<Object> body) {
    return reaching(
        runtime,
        agent ->
            wire.call(
                    agent.runtimeName(),
                    method,
                    agent.url(path, ""),
                    agent.token(),
                    body.map(json::writeValueAsString),
                    Optional.empty())
                .json());
  }

  private void command(
      AgentEndpoints.Endpoint agent, String path, Optional<String> body, AgentCommand command) {
    wire.call(
        agent.runtimeName(),
        "POST",
        agent.url(path, ""),
        agent.token(),
        body,
        Optional.of(command.context()));
  }

  /** Runs a call on the runtime's agent; an unreachable agent is looked up afresh next time. */
  private <T> T reaching(
      RuntimeRef runtime, java.util.function.Function<AgentEndpoints.Endpoint, T> call) {
    AgentEndpoints.Endpoint agent = endpoints.resolve(runtime);
    try {
      return call.apply(agent);
    } catch (AgentUnreachableException e) {
      endpoints.unreachable(runtime);
      throw e;
    }
  }

  static String queryOf(StreamFrom from) {
    return from.offset()
        .map(o -> "offset=" + URLEncoder.encode(o, StandardCharsets.UTF_8))
        .orElse("");
  }
}
