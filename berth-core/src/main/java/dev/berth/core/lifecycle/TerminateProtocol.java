package dev.berth.core.lifecycle;

import dev.berth.core.agent.AgentCommand;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.execution.Execution;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationType;
import dev.berth.core.operation.StepName;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.session.ObligationAction;
import dev.berth.core.session.ObligationState;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import java.time.Instant;
import java.util.Optional;

/**
 * Terminate: a workflow that only goes forward, never a rollback. Admission closes, running
 * executions are cancelled, the agent is told (a tombstone, best effort), the runtime is removed
 * and its removal confirmed, and only then is the reservation released; the last archive is
 * retained for the recovery window and deleted when it ends.
 *
 * <p>Failure modes: each step is recorded before it is taken, so a later pass carries on from the
 * first step not done; what cannot be done (a removal not confirmed) stays an obligation, and the
 * reservation stays held meanwhile.
 */
final class TerminateProtocol {
  private final ReconcilePass pass;
  private final LifecyclePorts ports;

  TerminateProtocol(ReconcilePass pass) {
    this.pass = pass;
    this.ports = pass.ports();
  }

  /** One step towards TERMINATED, in whatever phase the intent found the session. */
  Next step(Session s) {
    return switch (s.phase()) {
      case TERMINATING -> proceed(s);
      case TERMINATED -> applyRetention(s);
      case REQUESTED, PROVISIONING, READY, SUSPENDING, SUSPENDED, RESUMING, FAILED -> {
        Operation op = pass.begin(s, OperationType.TERMINATE, s.intent().version());
        pass.save(op.step(StepName.STOP_ADMISSION, "admission closed", pass.now()));
        pass.save(s, s.startTerminate(pass.now()));
        yield Next.CONTINUE;
      }
    };
  }

  /** Forward only: stop the workload, remove the runtime, release, retain, complete. */
  private Next proceed(Session s) {
    Operation op = pass.begin(s, OperationType.TERMINATE, s.intent().version());
    if (s.runtime().isPresent()) {
      return removeRuntime(s, op);
    }
    if (s.reservation() != Reservation.RELEASED) {
      pass.save(op.step(StepName.RELEASE_RESERVATION, "runtime removal confirmed", pass.now()));
      pass.reach("terminate.release");
      pass.save(s, s.releaseReservation());
      return Next.CONTINUE;
    }
    Session next = s;
    if (next.openObligation(ObligationAction.REVOKE_CREDENTIALS).isPresent()) {
      // No credential proxy issues credentials to sessions yet, so there is nothing to revoke.
      next =
          next.withObligation(
              ObligationAction.REVOKE_CREDENTIALS,
              "session/" + s.id(),
              o -> o.complete("no credentials were issued to this session"));
    }
    Optional<String> retained =
        next.openObligation(ObligationAction.RETAIN_ARCHIVE)
            .filter(o -> o.state() == ObligationState.PENDING)
            .map(o -> o.resource());
    if (retained.isPresent()) {
      Instant until = pass.now().plus(ports.settings().recoveryWindow());
      op = pass.save(op.step(StepName.APPLY_RETENTION, "until " + until, pass.now()));
      next =
          next.withObligation(
              ObligationAction.RETAIN_ARCHIVE,
              retained.get(),
              o -> o.retain(until, "kept for the recovery window"));
    }
    pass.save(s, next.completeTerminate());
    pass.succeed(op);
    return Next.CONTINUE;
  }

  private Next removeRuntime(Session s, Operation op) {
    RuntimeRef ref = s.runtime().orElseThrow();
    if (!op.hasStep(StepName.CANCEL_EXECUTIONS, ref.name())) {
      op = pass.save(op.step(StepName.CANCEL_EXECUTIONS, ref.name(), pass.now()));
      cancelExecutions(s);
      try {
        ports.agent().send(ref, new AgentCommand.Terminate(pass.context(s, op)));
      } catch (AgentUnreachableException e) {
        // Removing the runtime below stops the workload as well; the tombstone is best effort.
        pass.save(s, s.runtimeUnreachable(pass.now(), e.getMessage()));
        return Next.CONTINUE;
      } catch (StaleIntentException e) {
        return Next.RECOVERY_NEEDED;
      }
    }
    if (!op.hasStep(StepName.REMOVE_RUNTIME, ref.name())) {
      op = pass.save(op.step(StepName.REMOVE_RUNTIME, ref.name(), pass.now()));
    }
    pass.reach("terminate.remove-runtime");
    String resource = Session.runtimeResource(ref);
    return switch (ports.runtime().remove(ref)) {
      case RemovalResult.Confirmed c -> {
        pass.reach("terminate.after-remove");
        pass.save(s, s.runtimeGone(pass.now(), "Terminated", "runtime removed"));
        yield Next.CONTINUE;
      }
      case RemovalResult.InProgress p -> {
        pass.save(
            s,
            s.withObligation(
                ObligationAction.REMOVE_RUNTIME,
                resource,
                o -> o.state() == ObligationState.PENDING ? o : o.retry(p.detail())));
        yield Next.WAITING;
      }
      case RemovalResult.Unconfirmed u -> {
        pass.save(
            s,
            s.withObligation(
                    ObligationAction.REMOVE_RUNTIME,
                    resource,
                    o -> o.state() == ObligationState.FAILED ? o : o.fail(u.detail()))
                .runtimeUnreachable(pass.now(), u.detail()));
        yield Next.WAITING;
      }
    };
  }

  private void cancelExecutions(Session s) {
    for (Execution e : ports.store().listExecutions(s.id())) {
      if (!e.state().isFinished()) {
        ports.store().updateExecution(e.cancel(pass.now()), e.version());
      }
    }
  }

  /** TERMINATED: delete the retained archive once its recovery window ended. */
  private Next applyRetention(Session s) {
    var retained =
        s.openObligation(ObligationAction.RETAIN_ARCHIVE)
            .filter(o -> o.retainUntil().map(u -> !u.isAfter(pass.now())).orElse(false));
    if (retained.isEmpty()) {
      return Next.CONVERGED;
    }
    String resource = retained.get().resource();
    Session deleting = s;
    if (retained.get().state() == ObligationState.RETAINED) {
      // Recorded before the file goes: a recovery that took the archive over meanwhile makes
      // this write fail, and nothing is deleted under it (it accepts only a RETAINED archive).
      pass.save(
          s,
          s.withObligation(
              ObligationAction.RETAIN_ARCHIVE,
              resource,
              o -> o.retry("recovery window ended; deleting the archive")));
      deleting = pass.read().orElseThrow();
    }
    deleting.archive().ifPresent(ports.archives()::delete);
    pass.save(
        deleting,
        deleting.withObligation(
            ObligationAction.RETAIN_ARCHIVE, resource, o -> o.complete("archive deleted")));
    return Next.CONVERGED;
  }
}
