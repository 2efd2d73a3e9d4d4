package dev.berth.core.access;

import dev.berth.core.agent.AgentRefusedException;
import dev.berth.core.agent.ByteStream;
import dev.berth.core.agent.DataPlane;
import dev.berth.core.agent.ExecutionReport;
import dev.berth.core.agent.Refusal;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.NotRunningException;
import dev.berth.core.error.PromptTooLargeException;
import dev.berth.core.error.RuntimeUnavailableException;
import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.core.session.PermissionMode;
import dev.berth.core.session.Phase;
import dev.berth.core.session.PluginName;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The data plane as the public API serves it: reads and writes are access ({@link MakeActive}
 * first, then the call), streams and status are passive (a session without a running runtime is
 * refused, never restored or touched).
 *
 * <p>When the agent answers that an idle suspend paused the runtime between the activation and the
 * call (its reason {@code SUSPENDING}), the access wins: it takes the suspend back and makes the
 * call once more. When the agent answers that the runtime is gone, the reconciler is asked to look
 * at the session now rather than at its next resync, so that its state tells the truth soon after.
 */
public final class SessionData {

  /** A call made on an active session, with the activation that preceded it. */
  public record Served<T>(MakeActive.Activation activation, T result) {}

  private final SessionLookup lookup;
  private final MakeActive activation;
  private final DataPlane data;
  private final ReconcileQueue queue;

  public SessionData(
      SessionStore store,
      AccessLog accesses,
      MakeActive activation,
      DataPlane data,
      ReconcileQueue queue,
      InstantSource clock) {
    this.lookup = new SessionLookup(store, clock, java.util.Optional.of(accesses));
    this.activation = activation;
    this.data = data;
    this.queue = queue;
  }

  /**
   * The output from {@code offset}, after the access: the agent's answer, for the caller to close.
   */
  public Served<ByteStream> read(Scope scope, SessionId id, long offset, String actor) {
    if (offset < 0) {
      throw new InvalidValueException("invalid input: offset must be >= 0, was " + offset);
    }
    return serve(scope, id, "read", actor, runtime -> data.read(runtime, offset));
  }

  /** What a write did: the activation, and for an agent session the prompt's execution. */
  public record Written(MakeActive.Activation activation, Optional<ExecutionReport> prompt) {}

  /**
   * A write, after the access: to a shell its terminal input; to an agent session one prompt,
   * queued (its execution is in the answer). A prompt over 1 MiB is refused before anything is
   * restored; a permission mode applies to agent sessions only.
   */
  public Written write(
      Scope scope, SessionId id, byte[] payload, Optional<String> permissionMode, String actor) {
    permissionMode.ifPresent(PermissionMode::check);
    boolean blank = new String(payload, StandardCharsets.UTF_8).isBlank();
    if (payload.length > PromptTooLargeException.MAX_PROMPT_BYTES
        || permissionMode.isPresent()
        || blank) {
      // The cases a prompt refuses before anything is restored need the type first: one more
      // read, for them only (an ordinary keystroke takes none).
      boolean agent = WorkloadCatalog.isAgent(lookup.get(scope, id).workloadType());
      if (agent && payload.length > PromptTooLargeException.MAX_PROMPT_BYTES) {
        throw new PromptTooLargeException(payload.length);
      }
      if (agent && blank) {
        throw new InvalidValueException(
            "invalid input: the prompt is empty; write what to ask the agent");
      }
      if (!agent && permissionMode.isPresent()) {
        throw new InvalidValueException(
            "invalid input: permissionMode applies to agent sessions only; omit it for a shell");
      }
    }
    // Where the input got to: a retry after an idle suspend was aborted sends only the rest.
    int[] delivered = {0};
    Served<Optional<ExecutionReport>> served =
        serveSession(
            scope,
            id,
            "write",
            actor,
            (session, runtime) -> {
              if (!WorkloadCatalog.isAgent(session.workloadType())) {
                input(runtime, payload, delivered);
                return Optional.empty();
              }
              return Optional.of(
                  data.prompt(
                      runtime, new String(payload, StandardCharsets.UTF_8), permissionMode));
            });
    return new Written(served.activation(), served.result());
  }

  /** Writes {@code payload} (terminal input, or an agent session's prompt), after the access. */
  public MakeActive.Activation write(Scope scope, SessionId id, byte[] payload, String actor) {
    return write(scope, id, payload, Optional.empty(), actor).activation();
  }

  /**
   * Refreshes an agent session's plugins (their copies in its home, from the marketplace as it is
   * now); an access, as a write is: a snapshot is restored first, and the conversation is kept.
   */
  public Served<java.util.List<PluginName>> refreshPlugins(
      Scope scope, SessionId id, String actor) {
    requireAgent(scope, id, "has no plugins; agent sessions take them at create");
    return serve(scope, id, "refresh", actor, data::refreshPlugins);
  }

  /** The agent takes input in pieces; the terminal sees one stream. */
  private void input(RuntimeRef runtime, byte[] payload, int[] delivered) {
    while (delivered[0] < payload.length) {
      int to = Math.min(payload.length, delivered[0] + DataPlane.MAX_INPUT);
      data.input(runtime, Arrays.copyOfRange(payload, delivered[0], to));
      delivered[0] = to;
    }
  }

  /**
   * Makes the session active (counting the access), then makes the call; see the class comment for
   * the retry after an aborted idle suspend.
   */
  public <T> Served<T> serve(
      Scope scope, SessionId id, String verb, String actor, Function<RuntimeRef, T> call) {
    return serveSession(scope, id, verb, actor, (session, runtime) -> call.apply(runtime));
  }

  /** As {@link #serve}, with the call seeing the session it was made active as. */
  public <T> Served<T> serveSession(
      Scope scope,
      SessionId id,
      String verb,
      String actor,
      BiFunction<Session, RuntimeRef, T> call) {
    MakeActive.Activation first = activation.activate(scope, id, verb, actor);
    try {
      return new Served<>(
          first, observed(id, () -> call.apply(first.session(), runtimeOf(first.session()))));
    } catch (AgentRefusedException e) {
      if (e.refusal() != Refusal.SUSPENDING
          || !Settling.suspendedByIdlePolicy(lookup.get(scope, id))) {
        throw e;
      }
      MakeActive.Activation again = activation.activate(scope, id, verb, actor);
      return new Served<>(
          again, observed(id, () -> call.apply(again.session(), runtimeOf(again.session()))));
    }
  }

  /** The runtime of a session made active for interactive use (terminal input, executions). */
  public RuntimeRef interactive(Scope scope, SessionId id, String verb, String actor) {
    return runtimeOf(activation.activate(scope, id, verb, actor).session());
  }

  /**
   * The runtime of a session that may be used passively (stream, attach, status): it holds a
   * runtime and is ready. Never restores or touches.
   */
  public RuntimeRef passive(Scope scope, SessionId id) {
    Session session = lookup.get(scope, id);
    if (session.phase() != Phase.READY || session.runtime().isEmpty()) {
      throw new NotRunningException(
          "session in invalid state for operation: it is "
              + Refusals.phaseName(session)
              + " and has no running runtime; the stream never restores (read, write or switch"
              + " do)");
    }
    return session.runtime().get();
  }

  /**
   * Up to {@code limit} entries of an agent session's transcript after {@code cursor}; passive, as
   * the stream is (a snapshot is not restored to be read).
   */
  public DataPlane.TranscriptPage transcript(Scope scope, SessionId id, long cursor, int limit) {
    if (cursor < 0) {
      throw new InvalidValueException("invalid input: cursor must be >= 0, was " + cursor);
    }
    requireAgent(scope, id);
    RuntimeRef runtime = passive(scope, id);
    return observed(id, () -> data.transcript(runtime, cursor, limit));
  }

  /** The transcript as server-sent events from {@code from}; passive. */
  public ByteStream transcriptStream(Scope scope, SessionId id, DataPlane.StreamFrom from) {
    requireAgent(scope, id);
    RuntimeRef runtime = passive(scope, id);
    return observed(id, () -> data.transcriptStream(runtime, from));
  }

  private void requireAgent(Scope scope, SessionId id) {
    requireAgent(scope, id, "has no transcript; agent sessions have one");
  }

  private void requireAgent(Scope scope, SessionId id, String what) {
    Session session = lookup.get(scope, id);
    if (!WorkloadCatalog.isAgent(session.workloadType())) {
      throw new InvalidValueException(
          "invalid input: "
              + session.subject()
              + " is a "
              + session.workloadType()
              + " session and "
              + what);
    }
  }

  /**
   * Counts an access that needs no activation (terminal input on an open attach): one per key
   * typed, which the access log batches.
   */
  public void touch(SessionId id, String actor) {
    activation.accessed(id, actor);
  }

  private <T> T observed(SessionId id, Supplier<T> call) {
    try {
      return call.get();
    } catch (AgentRefusedException | AgentUnreachableException e) {
      queue.enqueue(id);
      throw e;
    } catch (NotFoundException runtimeGone) {
      // The agent no longer hosts this runtime: the session exists, its runtime does not.
      queue.enqueue(id);
      throw new RuntimeUnavailableException(
          "the session's runtime is gone; the session is being reconciled, retry shortly");
    }
  }

  private static RuntimeRef runtimeOf(Session s) {
    return s.runtime().orElseThrow(() -> Refusals.failed(s));
  }
}
