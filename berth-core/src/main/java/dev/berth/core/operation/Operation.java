package dev.berth.core.operation;

import dev.berth.core.session.SessionId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A durable record of the platform's attempt to change a session: its steps are written before
 * their side effects, so a restarted control plane knows how far it got. An operation whose intent
 * version is older than the session's current intent is superseded at its next step.
 *
 * @param generation the archive generation a SUSPEND works on, recorded before any side effect (0
 *     for other types)
 * @param version the store's compare-and-swap version (0 before it is stored)
 */
public record Operation(
    OperationId id,
    SessionId sessionId,
    OperationType type,
    long intentVersion,
    OperationState state,
    List<Step> steps,
    int attempts,
    Instant deadline,
    Optional<OperationError> error,
    Instant createdAt,
    Optional<Instant> finishedAt,
    long generation,
    long version) {

  public Operation {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(finishedAt, "finishedAt");
    steps = List.copyOf(steps);
  }

  public static Operation pending(
      OperationId id,
      SessionId sessionId,
      OperationType type,
      long intentVersion,
      Instant now,
      Instant deadline) {
    return new Operation(
        id,
        sessionId,
        type,
        intentVersion,
        OperationState.PENDING,
        List.of(),
        0,
        deadline,
        Optional.empty(),
        now,
        Optional.empty(),
        0,
        0);
  }

  public String subject() {
    return "operation " + id;
  }

  /** PENDING → RUNNING, or one more attempt of a RUNNING operation after a restart. */
  public Operation attempt() {
    OperationState next =
        state == OperationState.RUNNING
            ? state
            : OperationState.TABLE.next(subject(), state, OperationState.Event.START);
    return copy(next, steps, attempts + 1, error, finishedAt, generation);
  }

  /** Records {@code name} as the step about to be taken. */
  public Operation step(StepName name, String detail, Instant now) {
    List<Step> next = new ArrayList<>(steps);
    next.add(new Step(name, now, detail));
    return copy(state, next, attempts, error, finishedAt, generation);
  }

  /** Records the archive generation this suspend works on, before any side effect. */
  public Operation withGeneration(long archiveGeneration) {
    return copy(state, steps, attempts, error, finishedAt, archiveGeneration);
  }

  public Optional<Step> lastStep() {
    return steps.isEmpty() ? Optional.empty() : Optional.of(steps.get(steps.size() - 1));
  }

  public boolean hasStep(StepName name) {
    return steps.stream().anyMatch(s -> s.name() == name);
  }

  /** Whether step {@code name} was recorded with exactly {@code detail}. */
  public boolean hasStep(StepName name, String detail) {
    return steps.stream().anyMatch(s -> s.name() == name && s.detail().equals(detail));
  }

  public Operation succeed(Instant now) {
    return finish(OperationState.Event.SUCCEED, Optional.empty(), now);
  }

  public Operation fail(OperationError why, Instant now) {
    return finish(OperationState.Event.FAIL, Optional.of(why), now);
  }

  public Operation supersede(long currentIntent, Instant now) {
    return finish(
        OperationState.Event.SUPERSEDE,
        Optional.of(
            new OperationError(
                "SUPERSEDED", "intent v" + intentVersion + " was replaced by v" + currentIntent)),
        now);
  }

  public Operation withVersion(long storeVersion) {
    return new Operation(
        id,
        sessionId,
        type,
        intentVersion,
        state,
        steps,
        attempts,
        deadline,
        error,
        createdAt,
        finishedAt,
        generation,
        storeVersion);
  }

  private Operation finish(OperationState.Event event, Optional<OperationError> why, Instant now) {
    OperationState next = OperationState.TABLE.next(subject(), state, event);
    return copy(next, steps, attempts, why, Optional.of(now), generation);
  }

  private Operation copy(
      OperationState s,
      List<Step> st,
      int att,
      Optional<OperationError> err,
      Optional<Instant> fin,
      long gen) {
    return new Operation(
        id,
        sessionId,
        type,
        intentVersion,
        s,
        st,
        att,
        deadline,
        err,
        createdAt,
        fin,
        gen,
        version);
  }
}
