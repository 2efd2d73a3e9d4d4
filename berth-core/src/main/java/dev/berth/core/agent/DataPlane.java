package dev.berth.core.agent;

import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionRequest;
import dev.berth.core.session.PluginName;
import dev.berth.core.session.RuntimeRef;
import java.util.List;
import java.util.OptionalLong;

/**
 * Everything the control plane asks of the agent inside a session's runtime: the lifecycle commands
 * of {@link AgentClient} (status, checkpoint, restore, terminate, lease), which are all the
 * reconciler needs, and the data-plane calls the public API serves (input, output, streams, the
 * terminal, executions). One port for every runtime: the local node's sessions and a pod's agent
 * speak the same protocol, so the API never knows which one it serves.
 *
 * <p>What the control plane reasons about comes back as records ({@link ExecutionReport}, {@link
 * RuntimeReport}); what it only relays to a client — an output read, an SSE stream, terminal frames
 * — comes back as bytes or frames it passes on unread ({@link ByteStream}, {@link AttachLink}), so
 * that it never holds a read or a stream in memory.
 *
 * <p>Every call may throw {@link AgentUnreachableException} (the agent cannot be reached) and
 * {@link NotFoundException} (the agent no longer hosts the runtime); a refusal of the agent's own
 * (a paused runtime, a full log) is an {@link AgentRefusedException} carrying its reason.
 */
public interface DataPlane extends AgentClient {

  /** Writes {@code bytes} to the runtime's terminal; at most {@link #MAX_INPUT} per call. */
  void input(RuntimeRef runtime, byte[] bytes);

  /** The most input one {@link #input} call carries; a longer write is sent in pieces. */
  int MAX_INPUT = 1 << 20;

  /**
   * Opens a read of the output from {@code offset}: the public API's {@code OutputRead} document
   * (JSON: offset, payload, payloadBase64, nextOffset, startOffset, reset), at most 1 MiB of
   * payload, to be passed on as it arrives. The caller closes it.
   */
  ByteStream read(RuntimeRef runtime, long offset);

  /**
   * Opens the passive output stream (server-sent events, the byte-cursor contract of the public
   * API) from {@code offset} or after {@code lastEventId}. The caller closes it.
   */
  ByteStream stream(RuntimeRef runtime, StreamFrom from);

  /** As {@link #stream} for one execution's output. */
  ByteStream executionOutput(RuntimeRef runtime, ExecutionId execution, StreamFrom from);

  /**
   * Opens the terminal: frames from the agent go to {@code client} (each next frame waits for the
   * previous one's delivery), and the returned link carries the client's frames to the agent.
   *
   * @param offset where the replay starts; the agent's default (recent output) when empty
   */
  AttachLink attach(RuntimeRef runtime, OptionalLong offset, AttachPeer client);

  /** What the agent reports about the running runtime, for callers and the idle policy. */
  RuntimeReport report(RuntimeRef runtime);

  /** Starts a command beside the shell. */
  ExecutionReport startExecution(RuntimeRef runtime, ExecutionRequest request);

  /** The runtime's executions, oldest first. */
  List<ExecutionReport> executions(RuntimeRef runtime);

  /**
   * One execution.
   *
   * @throws NotFoundException when the runtime has no such execution
   */
  ExecutionReport execution(RuntimeRef runtime, ExecutionId execution);

  /** Cancels an execution (kills its process group); a finished one is answered as it is. */
  ExecutionReport cancelExecution(RuntimeRef runtime, ExecutionId execution);

  /**
   * Queues a prompt of an agent session's runtime; its execution, {@code QUEUED}. The runtime
   * answers 413, 429 and 507 for its prompt limits, and 409 NOT_AN_AGENT for a shell.
   *
   * @param permissionMode the turn's permission mode; empty for the CLI's default
   */
  ExecutionReport prompt(
      RuntimeRef runtime, String prompt, java.util.Optional<String> permissionMode);

  /**
   * Replaces an agent session's plugin copies with the marketplace's plugins as they are now,
   * between prompts; the conversation is kept. The runtime answers 409 PROMPTS_RUNNING while a
   * prompt runs or waits, 409 PLUGIN_UNAVAILABLE when a plugin left the marketplace, 409
   * PLUGINS_FOLDER_UNSAFE when the session made its plugin folder a link, and 409 NOT_AN_AGENT for
   * a shell; nothing is changed then.
   *
   * @return the plugins refreshed, none for a session created without plugins
   */
  List<PluginName> refreshPlugins(RuntimeRef runtime);

  /**
   * Up to {@code limit} transcript entries after {@code cursor}. Entries are passed through as JSON
   * objects in text, because their schema is the agents' own (documented in docs/agents.md) and the
   * control plane adds nothing to it.
   */
  TranscriptPage transcript(RuntimeRef runtime, long cursor, int limit);

  /** The transcript as server-sent events from the cursor in {@code from}'s offset. */
  ByteStream transcriptStream(RuntimeRef runtime, StreamFrom from);

  /** A page of the transcript and the cursor after it. */
  record TranscriptPage(List<String> entries, long nextCursor) {
    public TranscriptPage {
      entries = List.copyOf(entries);
    }
  }

  /**
   * Where a stream starts: a byte offset given by the client, or the SSE {@code Last-Event-ID} of a
   * reconnect (which the agent resolves); neither means the agent's default.
   */
  record StreamFrom(java.util.Optional<String> offset, java.util.Optional<String> lastEventId) {
    public StreamFrom {
      java.util.Objects.requireNonNull(offset, "offset");
      java.util.Objects.requireNonNull(lastEventId, "lastEventId");
    }
  }
}
