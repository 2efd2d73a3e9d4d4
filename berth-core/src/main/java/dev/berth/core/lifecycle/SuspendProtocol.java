package dev.berth.core.lifecycle;

import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.AgentRefusedException;
import dev.berth.core.agent.AgentReply;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationError;
import dev.berth.core.operation.OperationType;
import dev.berth.core.operation.StepName;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import java.util.HashSet;
import java.util.Set;

/**
 * Suspend (snapshot): record generation G on the operation before any side effect, close admission,
 * have the agent take checkpoint G, record the committed archive, and only then remove the runtime
 * and complete the suspend.
 *
 * <p>Failure modes: a suspend found SUSPENDING by a later pass whose archive G was not committed
 * may have left a checkpoint half taken and the workload paused: G is aborted (the agent resumes
 * the workload) and the suspend starts over. Once G is committed the suspend only goes forward,
 * from the runtime's removal; a runtime is never removed behind an archive that was not committed.
 * A checkpoint the agent refuses to take (its restore would refuse the archive) gives the suspend
 * up; {@link SuspendAbort} handles a suspend whose intent moved on.
 */
final class SuspendProtocol {
  private final ReconcilePass pass;
  private final LifecyclePorts ports;
  private final RuntimeWatch watch;
  private final SuspendAbort abort;
  private final Set<Long> preparedHere = new HashSet<>();

  SuspendProtocol(ReconcilePass pass, RuntimeWatch watch, SuspendAbort abort) {
    this.pass = pass;
    this.ports = pass.ports();
    this.watch = watch;
    this.abort = abort;
  }

  /** READY: records generation G on the operation before any side effect, then closes admission. */
  Next start(Session s) {
    Operation op = pass.begin(s, OperationType.SUSPEND, s.intent().version());
    long generation =
        Math.max(s.archive().map(ArchiveRef::generation).orElse(0L), op.generation()) + 1;
    pass.save(
        op.withGeneration(generation)
            .step(StepName.PREPARING, "generation " + generation, pass.now()));
    preparedHere.add(generation);
    pass.save(s, s.startSuspend(pass.now()));
    return Next.CONTINUE;
  }

  /** SUSPENDING: checkpoint G, commit it, then remove the runtime. */
  Next proceed(Session s) {
    long generation = pass.inFlightGeneration(s);
    Operation op = pass.begin(s, OperationType.SUSPEND, s.intent().version());
    if (op.generation() != generation) {
      // The suspend in flight was started for an older intent; this one carries it on.
      op =
          pass.save(
              op.withGeneration(generation)
                  .step(StepName.PREPARING, "continues generation " + generation, pass.now()));
    }
    boolean committed = s.archive().map(ArchiveRef::generation).orElse(0L) == generation;
    if (committed) {
      return removeRuntime(s, op, generation);
    }
    if (ports.runtime().observe(s.runtime().orElseThrow())
        instanceof RuntimeObservation.Gone gone) {
      return watch.runtimeLost(
          s,
          "during suspend, before generation " + generation + " was committed: " + gone.detail());
    }
    if (!preparedHere.contains(generation)) {
      // A pass that died between PREPARING and COMMITTING: the checkpoint may be half taken
      // and the workload paused. Abort G (the agent resumes the workload) and start over.
      return abort.abortCheckpoint(s, op, generation);
    }
    return checkpoint(s, op, generation);
  }

  private Next checkpoint(Session s, Operation op, long generation) {
    pass.reach("suspend.prepare");
    AgentReply reply;
    try {
      reply =
          ports
              .agent()
              .send(
                  s.runtime().orElseThrow(),
                  new AgentCommand.PrepareCheckpoint(pass.context(s, op), generation));
    } catch (AgentUnreachableException e) {
      return pass.unreachable(s, e.getMessage());
    } catch (StaleIntentException e) {
      return Next.RECOVERY_NEEDED;
    } catch (AgentRefusedException e) {
      return switch (e.refusal()) {
        case ARCHIVE_REFUSED, PROMPTS_RUNNING -> snapshotRefused(s, op, e);
        case SUSPENDING, ARCHIVE_UNSAFE, ARCHIVE_CORRUPT, ARCHIVE_MISSING, OTHER -> throw e;
      };
    }
    if (!(reply instanceof AgentReply.CheckpointTaken taken)
        || taken.archive().generation() != generation) {
      throw new IllegalStateException(
          s.subject() + " asked for checkpoint " + generation + " and the agent answered " + reply);
    }
    pass.reach("suspend.before-commit-record");
    // The runtime it was taken from is the one this suspend reclaims (checkpoint.reclaimed).
    pass.save(s, s.archiveCommitted(taken.archive().takenFrom(s.runtime().orElseThrow().name())));
    pass.save(op.step(StepName.COMMITTING, taken.archive().uri(), pass.now()));
    ArchivePruning.deleteOlderThan(ports.archives(), s.id(), generation);
    // The archive this one replaces may be another session's (a recovered session starts from
    // the deleted one's), which the listing above does not show.
    s.archive().ifPresent(a -> ArchivePruning.deleteQuietly(ports.archives(), a));
    pass.reach("suspend.after-commit");
    return Next.CONTINUE;
  }

  /**
   * The agent would not take the checkpoint: its restore would refuse the archive (too many
   * entries, too many bytes, a file too large). Retrying cannot help while the state stays as it
   * is, so the suspend is given up: the agent thawed the tree, the session goes back to READY, the
   * operation fails with the agent's reason, and the intent returns to RUNNING, written by the
   * reconciler with the reason, so that nothing retries it until someone asks again.
   */
  private Next snapshotRefused(Session s, Operation op, AgentRefusedException e) {
    // The session first: once its intent is RUNNING no pass asks for this checkpoint again, so
    // a crash before the operation is failed leaves nothing to repeat.
    pass.save(
        s,
        s.abortSuspend(pass.now())
            .withIntent(
                DesiredState.RUNNING,
                pass.now(),
                Reconciler.ACTOR,
                "snapshot refused: " + e.getMessage()));
    if (!op.state().isFinished()) {
      pass.save(op.fail(new OperationError(e.refusal().name(), e.getMessage()), pass.now()));
    }
    return Next.CONTINUE;
  }

  /** Only behind a committed archive: remove the runtime, confirm it gone, release. */
  private Next removeRuntime(Session s, Operation op, long generation) {
    if (s.runtime().isEmpty()) {
      pass.save(s, s.completeSuspend(generation));
      pass.succeed(op);
      return Next.CONTINUE;
    }
    RuntimeRef ref = s.runtime().get();
    if (!op.hasStep(StepName.REMOVE_RUNTIME, ref.name())) {
      op = pass.save(op.step(StepName.REMOVE_RUNTIME, ref.name(), pass.now()));
    }
    pass.reach("suspend.remove-runtime");
    return switch (ports.runtime().remove(ref)) {
      case RemovalResult.Confirmed c -> {
        pass.reach("suspend.after-remove");
        pass.save(
            s,
            s.runtimeGone(
                    pass.now(),
                    "Suspended",
                    "runtime removed after archive generation " + generation + " was committed")
                .completeSuspend(generation));
        pass.succeed(op);
        yield Next.CONTINUE;
      }
      case RemovalResult.InProgress p -> Next.WAITING;
      case RemovalResult.Unconfirmed u -> pass.unreachable(s, u.detail());
    };
  }
}
