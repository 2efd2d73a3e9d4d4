package dev.berth.core.testing;

import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.AgentRefusedException;
import dev.berth.core.agent.AgentReply;
import dev.berth.core.agent.AgentStatus;
import dev.berth.core.agent.AttachLink;
import dev.berth.core.agent.AttachPeer;
import dev.berth.core.agent.ByteStream;
import dev.berth.core.agent.DataPlane;
import dev.berth.core.agent.ExecutionReport;
import dev.berth.core.agent.Refusal;
import dev.berth.core.agent.RuntimeReport;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionRequest;
import dev.berth.core.execution.ExecutionState;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.session.RuntimeRef;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The data plane of {@link SimulatedCloud}'s runtimes for model and use-case tests: a fake, since
 * these tests run without processes. The lifecycle commands go to the cloud (which keeps the local
 * contract); each runtime has a terminal that echoes its input as its output, as a PTY in echo mode
 * does, and executions that finish at once with status 0 unless their command sleeps (then they run
 * until cancelled). A runtime the cloud no longer hosts is "not found"; one it cannot reach is
 * unreachable. {@link #refuseNextInput} makes the agent refuse once, as a paused runtime does.
 */
public final class SimulatedDataPlane implements DataPlane {

  private final SimulatedCloud cloud;
  private final InstantSource clock;
  private final Map<String, Terminal> terminals = new HashMap<>();
  private final Map<String, Refusal> refusals = new HashMap<>();
  private final Map<String, Runnable> meanwhile = new HashMap<>();
  private boolean busy;
  private final java.util.Random random = new java.util.Random(7);

  private static final class Terminal {
    final ByteArrayOutputStream output = new ByteArrayOutputStream();
    final List<ExecutionReport> executions = new ArrayList<>();
    final List<String> transcript = new ArrayList<>();
    final List<AttachPeer> attached = new ArrayList<>();
    int pluginRefreshes;
  }

  public SimulatedDataPlane(SimulatedCloud cloud, InstantSource clock) {
    this.cloud = cloud;
    this.clock = clock;
  }

  /** The next data call to {@code runtime} is refused by its agent with {@code reason}. */
  public synchronized void refuseNextInput(RuntimeRef runtime, Refusal reason) {
    refuseNextInput(runtime, reason, () -> {});
  }

  /**
   * As {@link #refuseNextInput(RuntimeRef, Refusal)}, running {@code cause} first: what made the
   * agent refuse (an idle suspend that paused the runtime) happens just before the refusal.
   */
  public synchronized void refuseNextInput(RuntimeRef runtime, Refusal reason, Runnable cause) {
    refusals.put(runtime.name(), reason);
    meanwhile.put(runtime.name(), cause);
  }

  /** Whether the agents report a foreground job. */
  public synchronized void busy(boolean busy) {
    this.busy = busy;
  }

  /** What the runtime's terminal has written so far. */
  public synchronized String output(RuntimeRef runtime) {
    return terminal(runtime).output.toString(StandardCharsets.UTF_8);
  }

  @Override
  public AgentStatus status(RuntimeRef runtime) {
    return cloud.status(runtime);
  }

  @Override
  public AgentReply send(RuntimeRef runtime, AgentCommand command) {
    return cloud.send(runtime, command);
  }

  @Override
  public synchronized void input(RuntimeRef runtime, byte[] bytes) {
    Terminal terminal = hosted(runtime);
    Refusal refusal = refusals.remove(runtime.name());
    if (refusal != null) {
      meanwhile.remove(runtime.name()).run();
      throw new AgentRefusedException(refusal, runtime.name() + " refused the input: " + refusal);
    }
    terminal.output.writeBytes(bytes);
    for (AttachPeer peer : terminal.attached) {
      peer.binary(ByteBuffer.wrap(bytes.clone()));
    }
  }

  @Override
  public synchronized ByteStream read(RuntimeRef runtime, long offset) {
    byte[] all = hosted(runtime).output.toByteArray();
    int from = (int) Math.min(offset, all.length);
    byte[] slice = java.util.Arrays.copyOfRange(all, from, all.length);
    String body =
        "{\"offset\":"
            + from
            + ",\"payload\":"
            + jsonString(new String(slice, StandardCharsets.UTF_8))
            + ",\"payloadBase64\":\""
            + Base64.getEncoder().encodeToString(slice)
            + "\",\"nextOffset\":"
            + all.length
            + ",\"startOffset\":0,\"reset\":false}";
    return bytes(body, "application/json");
  }

  @Override
  public synchronized ByteStream stream(RuntimeRef runtime, StreamFrom from) {
    byte[] all = hosted(runtime).output.toByteArray();
    int start = from.offset().map(Integer::parseInt).orElse(0);
    byte[] slice = java.util.Arrays.copyOfRange(all, Math.min(start, all.length), all.length);
    // The agent greets a new stream with a comment before its first event.
    String event =
        ": connected\n\nid: "
            + all.length
            + "\nevent: output\ndata: {\"offset\":"
            + start
            + ",\"payloadBase64\":\""
            + Base64.getEncoder().encodeToString(slice)
            + "\",\"nextOffset\":"
            + all.length
            + "}\n\n";
    return bytes(event, "text/event-stream");
  }

  @Override
  public synchronized ByteStream executionOutput(
      RuntimeRef runtime, ExecutionId execution, StreamFrom from) {
    execution(runtime, execution);
    return bytes("", "text/event-stream");
  }

  @Override
  public synchronized AttachLink attach(
      RuntimeRef runtime, OptionalLong offset, AttachPeer client) {
    Terminal terminal = hosted(runtime);
    byte[] all = terminal.output.toByteArray();
    int from = (int) Math.min(offset.orElse(0), all.length);
    client.text("{\"type\":\"attached\",\"offset\":" + from + ",\"live\":" + all.length + "}");
    client.binary(ByteBuffer.wrap(java.util.Arrays.copyOfRange(all, from, all.length)));
    terminal.attached.add(client);
    return new AttachLink() {
      @Override
      public CompletionStage<?> binary(ByteBuffer frame) {
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        input(runtime, bytes);
        return CompletableFuture.completedFuture(null);
      }

      @Override
      public CompletionStage<?> text(String frame) {
        return CompletableFuture.completedFuture(null);
      }

      @Override
      public void abort() {
        synchronized (SimulatedDataPlane.this) {
          terminal.attached.remove(client);
        }
      }
    };
  }

  @Override
  public synchronized RuntimeReport report(RuntimeRef runtime) {
    Terminal terminal = hosted(runtime);
    boolean running =
        terminal.executions.stream().anyMatch(e -> e.state() == ExecutionState.RUNNING);
    return new RuntimeReport(busy, running, Map.of("state", "running", "busy", busy));
  }

  @Override
  public synchronized ExecutionReport startExecution(RuntimeRef runtime, ExecutionRequest request) {
    Terminal terminal = hosted(runtime);
    boolean sleeps = request.command().contains("sleep");
    var now = clock.instant();
    ExecutionReport report =
        new ExecutionReport(
            ExecutionId.generate(random),
            request.command(),
            sleeps ? ExecutionState.RUNNING : ExecutionState.SUCCEEDED,
            sleeps ? Optional.empty() : Optional.of(0),
            now,
            Optional.of(now),
            sleeps ? Optional.empty() : Optional.of(now),
            false,
            0);
    terminal.executions.add(report);
    return report;
  }

  /**
   * A simulated agent answers at once: the prompt's execution has succeeded, its answer ("echo: "
   * and the prompt) is in the output, and the transcript holds the prompt and the answer.
   */
  @Override
  public synchronized ExecutionReport prompt(
      RuntimeRef runtime, String prompt, Optional<String> permissionMode) {
    Terminal terminal = hosted(runtime);
    var now = clock.instant();
    ExecutionReport report =
        new ExecutionReport(
            ExecutionId.generate(random),
            prompt,
            ExecutionState.SUCCEEDED,
            Optional.of(0),
            now,
            Optional.of(now),
            Optional.of(now),
            false,
            0);
    terminal.executions.add(report);
    terminal.output.writeBytes(("echo: " + prompt + "\n").getBytes(StandardCharsets.UTF_8));
    terminal.transcript.add("{\"type\":\"user_prompt\",\"text\":" + jsonString(prompt) + "}");
    terminal.transcript.add(
        "{\"type\":\"assistant_text\",\"text\":" + jsonString("echo: " + prompt) + "}");
    return report;
  }

  /**
   * A simulated agent refreshes at once, the plugins its runtime was provisioned with; a shell's
   * refuses, as a node does.
   */
  @Override
  public synchronized List<dev.berth.core.session.PluginName> refreshPlugins(RuntimeRef runtime) {
    Terminal terminal = hosted(runtime);
    if (cloud.runsAShell(runtime)) {
      throw new dev.berth.core.agent.AgentRefusedException(
          dev.berth.core.agent.Refusal.OTHER,
          "NOT_AN_AGENT",
          "runtime " + runtime.name() + " runs a shell and has no plugins");
    }
    terminal.pluginRefreshes++;
    return cloud.plugins(runtime);
  }

  /** How many plugin refreshes {@code runtime} took. */
  public synchronized int pluginRefreshes(RuntimeRef runtime) {
    return terminal(runtime).pluginRefreshes;
  }

  @Override
  public synchronized TranscriptPage transcript(RuntimeRef runtime, long cursor, int limit) {
    List<String> all = hosted(runtime).transcript;
    int from = (int) Math.min(cursor, all.size());
    int to = (int) Math.min(all.size(), (long) from + limit);
    return new TranscriptPage(all.subList(from, to), to);
  }

  @Override
  public synchronized ByteStream transcriptStream(RuntimeRef runtime, StreamFrom from) {
    List<String> all = hosted(runtime).transcript;
    int start = Math.min(from.offset().map(Integer::parseInt).orElse(0), all.size());
    StringBuilder events = new StringBuilder();
    for (int i = start; i < all.size(); i++) {
      events.append("id: ").append(i + 1).append("\nevent: entry\ndata: ").append(all.get(i));
      events.append("\n\n");
    }
    return bytes(events.toString(), "text/event-stream");
  }

  @Override
  public synchronized List<ExecutionReport> executions(RuntimeRef runtime) {
    return List.copyOf(hosted(runtime).executions);
  }

  @Override
  public synchronized ExecutionReport execution(RuntimeRef runtime, ExecutionId execution) {
    return hosted(runtime).executions.stream()
        .filter(e -> e.id().equals(execution))
        .findFirst()
        .orElseThrow(() -> new NotFoundException("execution " + execution.value()));
  }

  @Override
  public synchronized ExecutionReport cancelExecution(RuntimeRef runtime, ExecutionId execution) {
    Terminal terminal = hosted(runtime);
    ExecutionReport found = execution(runtime, execution);
    if (found.state() != ExecutionState.RUNNING) {
      return found;
    }
    ExecutionReport cancelled =
        new ExecutionReport(
            found.id(),
            found.command(),
            ExecutionState.CANCELLED,
            Optional.empty(),
            found.submittedAt(),
            found.startedAt(),
            Optional.of(clock.instant()),
            false,
            found.outputBytes());
    terminal.executions.set(terminal.executions.indexOf(found), cancelled);
    return cancelled;
  }

  private Terminal hosted(RuntimeRef runtime) {
    return switch (cloud.observe(runtime)) {
      case RuntimeObservation.Running running -> terminal(runtime);
      case RuntimeObservation.Gone gone -> throw new NotFoundException(runtime.name());
      case RuntimeObservation.Unknown unknown ->
          throw new AgentUnreachableException(runtime.name(), unknown.detail());
      case RuntimeObservation.Starting starting ->
          throw new AgentUnreachableException(runtime.name(), "still starting");
      case RuntimeObservation.Failed failed ->
          throw new AgentUnreachableException(runtime.name(), "failed: " + failed.detail());
    };
  }

  private Terminal terminal(RuntimeRef runtime) {
    return terminals.computeIfAbsent(runtime.name(), n -> new Terminal());
  }

  private static ByteStream bytes(String body, String type) {
    return new ByteStream(
        Optional.of(type), new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
  }

  private static String jsonString(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
