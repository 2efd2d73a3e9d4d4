package dev.berth.core.lifecycle;

import dev.berth.core.agent.AgentCommand;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.StepName;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import java.util.Optional;

/**
 * A suspend that does not go on as planned: generation G aborted (the agent resumes the paused
 * workload and reopens admission, the session is READY again), or a suspend whose intent moved on
 * to RUNNING while it was SUSPENDING. Access wins over a suspend, unless archive G was committed
 * already: then the runtime may be half removed, so the suspend goes forward (from the removal, as
 * the protocol says) and the session resumes from G. Aborting there could find the runtime gone and
 * take it for lost.
 */
final class SuspendAbort {
  private final ReconcilePass pass;
  private final LifecyclePorts ports;
  private final RuntimeWatch watch;

  SuspendAbort(ReconcilePass pass, RuntimeWatch watch) {
    this.pass = pass;
    this.ports = pass.ports();
    this.watch = watch;
  }

  /** Aborts generation G: the agent resumes the workload; the session is READY again. */
  Next abortCheckpoint(Session s, Operation op, long generation) {
    op = pass.save(op.step(StepName.ABORT_CHECKPOINT, "generation " + generation, pass.now()));
    Optional<Next> refused =
        pass.command(s, new AgentCommand.AbortCheckpoint(pass.context(s, op), generation));
    if (refused.isPresent()) {
      return refused.get();
    }
    pass.save(s, s.abortSuspend(pass.now()));
    return Next.CONTINUE;
  }

  /** SUSPENDING under a RUNNING intent: the intent moved on during the suspend. */
  Next abandon(Session s) {
    long generation = pass.inFlightGeneration(s);
    if (s.runtime().isEmpty()) {
      pass.save(s, s.completeSuspend(generation));
      return Next.CONTINUE;
    }
    if (s.archive().map(ArchiveRef::generation).orElse(0L) == generation) {
      return finishCommitted(s, generation);
    }
    if (ports.runtime().observe(s.runtime().get()) instanceof RuntimeObservation.Gone gone) {
      return watch.runtimeLost(s, "during suspend: " + gone.detail());
    }
    Operation op = pass.begin(s, SessionIntents.typeFor(s), s.intent().version());
    return abortCheckpoint(s, op, generation);
  }

  private Next finishCommitted(Session s, long generation) {
    RuntimeRef ref = s.runtime().orElseThrow();
    return switch (ports.runtime().remove(ref)) {
      case RemovalResult.Confirmed c -> {
        pass.save(
            s,
            s.runtimeGone(
                    pass.now(),
                    "Suspended",
                    "runtime removed after archive generation "
                        + generation
                        + " was committed; the session resumes from it")
                .completeSuspend(generation));
        yield Next.CONTINUE;
      }
      case RemovalResult.InProgress p -> Next.WAITING;
      case RemovalResult.Unconfirmed u -> pass.unreachable(s, u.detail());
    };
  }
}
