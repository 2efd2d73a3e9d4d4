package dev.berth.core.execution;

import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One user action inside a running session: a command beside the shell or an agent prompt. Its
 * state is independent of the session's: a session stays healthy while an execution fails.
 *
 * @param outputStart the byte offset in the execution's output log where its output begins
 * @param outputEnd the offset just past its output, once finished
 * @param version the store's compare-and-swap version (0 before it is stored)
 */
public record Execution(
    ExecutionId id,
    SessionId sessionId,
    ExecutionKind kind,
    String command,
    ExecutionState state,
    Optional<Integer> exitCode,
    long outputStart,
    Optional<Long> outputEnd,
    Instant submittedAt,
    Optional<Instant> startedAt,
    Optional<Instant> finishedAt,
    long intentVersion,
    Optional<String> idempotencyKey,
    long version) {

  public Execution {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(exitCode, "exitCode");
    Objects.requireNonNull(outputEnd, "outputEnd");
    Objects.requireNonNull(submittedAt, "submittedAt");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(finishedAt, "finishedAt");
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
  }

  public static Execution queued(
      ExecutionId id,
      SessionId sessionId,
      ExecutionKind kind,
      String command,
      long intentVersion,
      Optional<String> idempotencyKey,
      Instant now) {
    return new Execution(
        id,
        sessionId,
        kind,
        command,
        ExecutionState.QUEUED,
        Optional.empty(),
        0,
        Optional.empty(),
        now,
        Optional.empty(),
        Optional.empty(),
        intentVersion,
        idempotencyKey,
        0);
  }

  public Execution start(long outputOffset, Instant now) {
    return new Execution(
        id,
        sessionId,
        kind,
        command,
        move(ExecutionState.Event.START),
        exitCode,
        outputOffset,
        outputEnd,
        submittedAt,
        Optional.of(now),
        finishedAt,
        intentVersion,
        idempotencyKey,
        version);
  }

  /** Ends a running execution with its exit code: 0 succeeds, anything else fails. */
  public Execution exit(int code, long outputOffset, Instant now) {
    ExecutionState.Event event =
        code == 0 ? ExecutionState.Event.SUCCEED : ExecutionState.Event.FAIL;
    return finish(event, Optional.of(code), Optional.of(outputOffset), now);
  }

  public Execution cancel(Instant now) {
    return finish(ExecutionState.Event.CANCEL, exitCode, outputEnd, now);
  }

  /** The runtime vanished while this execution was queued or running: its outcome is unknown. */
  public Execution lose(Instant now) {
    return finish(ExecutionState.Event.LOSE, Optional.empty(), outputEnd, now);
  }

  public Execution withVersion(long storeVersion) {
    return new Execution(
        id,
        sessionId,
        kind,
        command,
        state,
        exitCode,
        outputStart,
        outputEnd,
        submittedAt,
        startedAt,
        finishedAt,
        intentVersion,
        idempotencyKey,
        storeVersion);
  }

  private Execution finish(
      ExecutionState.Event event, Optional<Integer> code, Optional<Long> end, Instant now) {
    return new Execution(
        id,
        sessionId,
        kind,
        command,
        move(event),
        code,
        outputStart,
        end,
        submittedAt,
        startedAt,
        Optional.of(now),
        intentVersion,
        idempotencyKey,
        version);
  }

  private ExecutionState move(ExecutionState.Event event) {
    return ExecutionState.TABLE.next("execution " + id, state, event);
  }
}
