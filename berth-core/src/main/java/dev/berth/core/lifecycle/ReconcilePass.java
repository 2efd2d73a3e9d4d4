package dev.berth.core.lifecycle;

import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.CommandContext;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationError;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationState;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.Failure;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.Lease;
import dev.berth.core.store.SessionStore;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * One pass over one session under one lease: what every protocol step shares. It reads the session,
 * and makes the writes every step makes the same way: a session compare-and-swap (with an audit
 * line when the phase moves), an operation update, an operation started once per pass, a command to
 * the agent.
 *
 * <p>Every write carries the lease's fencing token, so once the lease is lost nothing the pass
 * still tries is stored. The session is read afresh for every step; its operations come from the
 * pass's {@link OperationLedger}, read once. A pass is single-threaded; it remembers the operations
 * it started itself, so that an operation is attempted once per pass however many steps serve it.
 */
final class ReconcilePass {
  private final LifecyclePorts ports;
  private final SessionStore store;
  private final SessionId id;
  private final Lease lease;
  private final OperationLedger ledger;
  private final Set<OperationId> startedHere = new HashSet<>();

  ReconcilePass(LifecyclePorts ports, SessionId id, Lease lease) {
    this.ports = ports;
    this.store = ports.store();
    this.id = id;
    this.lease = lease;
    this.ledger = new OperationLedger(store, id, lease.token(), ports.events());
  }

  LifecyclePorts ports() {
    return ports;
  }

  SessionId id() {
    return id;
  }

  /** The session as stored now, or empty when it was deleted; the ledger follows it. */
  Optional<Session> read() {
    Optional<Session> found = store.get(id);
    found.ifPresent(ledger::follow);
    return found;
  }

  Instant now() {
    return ports.clock().instant();
  }

  void reach(String failpoint) {
    ports.failpoints().reach(failpoint);
  }

  // ---- operations ---------------------------------------------------------------------------

  /** Supersedes unfinished operations that serve an older intent than the current one. */
  void supersedeStale(Session s) {
    for (Operation op : ledger.operations()) {
      if (!op.state().isFinished()
          && op.intentVersion() < s.intent().version()
          && op.type() != OperationType.RECOVER) {
        save(op.supersede(s.intent().version(), now()));
      }
    }
  }

  /** Marks operations that served the current intent as succeeded once it is reached. */
  void finishServedOperations() {
    Session s = read().orElseThrow();
    for (Operation op : ledger.operations()) {
      if (!op.state().isFinished()
          && op.intentVersion() == s.intent().version()
          && op.type() != OperationType.RECOVER) {
        Operation running = op.state() == OperationState.PENDING ? save(op.attempt()) : op;
        save(
            s.failure()
                .map(f -> running.fail(new OperationError(f.reason().name(), f.message()), now()))
                .orElseGet(() -> running.succeed(now())));
      }
    }
  }

  /** The operation of this type and number, recorded if missing and started in this pass. */
  Operation begin(Session s, OperationType type, long n) {
    Operation recorded =
        ledger.findOrCreate(
            Operation.pending(
                OperationId.of(s.id(), type, n),
                s.id(),
                type,
                s.intent().version(),
                now(),
                now().plus(ports.settings().operationTimeout())));
    if (recorded.state().isFinished()) {
      return recorded;
    }
    return attemptOnce(recorded);
  }

  /** The unfinished operation that started the session's current runtime. */
  Operation startOperation(Session s) {
    return ledger.operations().stream()
        .filter(o -> !o.state().isFinished())
        .filter(
            o ->
                o.type() == OperationType.PROVISION
                    || o.type() == OperationType.RESUME
                    || o.type() == OperationType.RECOVER)
        .max(Comparator.comparing(Operation::createdAt))
        .map(this::attemptOnce)
        .orElseGet(() -> begin(s, SessionIntents.typeFor(s), s.intent().version()));
  }

  /** The archive generation of the suspend in flight, recorded before any side effect. */
  long inFlightGeneration(Session s) {
    return ledger.operations().stream()
        .filter(o -> o.type() == OperationType.SUSPEND)
        .mapToLong(Operation::generation)
        .max()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    s.subject() + " is " + s.phase() + " but no SUSPEND operation recorded"));
  }

  private Operation attemptOnce(Operation op) {
    return startedHere.add(op.id()) ? save(op.attempt()) : op;
  }

  /** Marks {@code op} succeeded unless an earlier pass already finished it. */
  void succeed(Operation op) {
    Operation current = ledger.find(op.id()).orElse(op);
    if (!current.state().isFinished()) {
      save(current.succeed(now()));
    }
  }

  Operation save(Operation op) {
    return ledger.update(op);
  }

  // ---- the session --------------------------------------------------------------------------

  void save(Session before, Session after) {
    if (after.equals(before)) {
      return;
    }
    store.compareAndSet(after, before.version(), lease.token());
    if (after.phase() != before.phase()) {
      store.append(
          AuditEvent.of(
              id,
              now(),
              ports.settings().holder(),
              "session.phase",
              before.phase() + " -> " + after.phase()));
    }
  }

  /** Fails {@code failing} (the session as the step left it) and {@code op} for the same reason. */
  Next fail(Session before, Session failing, Operation op, Failure why) {
    save(before, failing.fail(why));
    save(op.fail(new OperationError(why.reason().name(), why.message()), now()));
    return Next.CONVERGED;
  }

  /** Lost contact: the runtime is Unknown and the reservation UNCERTAIN; nothing is started. */
  Next unreachable(Session s, String detail) {
    save(s, s.runtimeUnreachable(now(), detail));
    return Next.WAITING;
  }

  // ---- the agent ----------------------------------------------------------------------------

  /** Sends {@code command}; what the pass does instead when the agent could not take it. */
  Optional<Next> command(Session s, AgentCommand command) {
    try {
      ports.agent().send(s.runtime().orElseThrow(), command);
      return Optional.empty();
    } catch (AgentUnreachableException e) {
      return Optional.of(unreachable(s, e.getMessage()));
    } catch (StaleIntentException e) {
      return Optional.of(Next.RECOVERY_NEEDED);
    }
  }

  CommandContext context(Session s, Operation op) {
    return new CommandContext(
        s.id(), s.intent().version(), now().plus(ports.settings().commandTimeout()), op.id());
  }
}
