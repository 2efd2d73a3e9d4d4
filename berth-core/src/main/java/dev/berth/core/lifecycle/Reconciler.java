package dev.berth.core.lifecycle;

import dev.berth.core.agent.AgentClient;
import dev.berth.core.agent.AgentCommand;
import dev.berth.core.agent.AgentRefusedException;
import dev.berth.core.agent.AgentReply;
import dev.berth.core.agent.AgentStatus;
import dev.berth.core.agent.CommandContext;
import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.execution.Execution;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationError;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationState;
import dev.berth.core.operation.OperationType;
import dev.berth.core.operation.StepName;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.ConditionStatus;
import dev.berth.core.session.ConditionType;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Failure;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.ObligationAction;
import dev.berth.core.session.ObligationState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.PhaseEvent;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.Lease;
import dev.berth.core.store.SessionStore;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Drives one session from its observed state towards its intent, one durable step at a time, under
 * the session lease.
 *
 * <p>Implementation notes.
 *
 * <p>Level-triggered: each pass re-reads the session and decides from (intent, phase) alone, so a
 * pass that was interrupted anywhere — a crash, a lost lease — is finished by the next one. Every
 * decision writes its record (operation step, planned runtime, committed archive) before the side
 * effect it announces; every write carries the lease's fencing token, so a holder that lost the
 * lease can no longer change anything.
 *
 * <p>Protocols (STATE-MODEL.md §4): provision and resume plan runtime incarnation n+1 by name
 * before creating it; suspend records generation G, asks the agent for a checkpoint, records the
 * committed archive, and only then removes the runtime; a suspend found half-done by a later pass
 * whose archive was not committed is aborted (the workload resumes) and tried again; termination
 * goes forward only, keeping what it could not do as obligations, and releases the reservation only
 * after runtime removal was confirmed.
 *
 * <p>Failure modes: lost contact with an agent marks the runtime Unknown and the reservation
 * UNCERTAIN and starts nothing; a runtime that vanished loses its running executions and is
 * restored from its last archive when allowed; an agent that accepted a newer intent than the store
 * holds means the store is older than reality, and the pass stops with RECOVERY_NEEDED.
 *
 * <p>Concurrency: instances are stateless between passes and may be shared; the lease guarantees at
 * most one pass per session across all control planes.
 */
public final class Reconciler {

  /**
   * Who writes an intent the reconciler gives up: a snapshot the agent refused to take (its restore
   * would refuse the archive) is not retried until someone asks again.
   */
  public static final String ACTOR = "reconciler";

  /** The agent's reason for a checkpoint its restore would refuse. */
  public static final String ARCHIVE_REFUSED = "ARCHIVE_REFUSED";

  private static final int MAX_STEPS = 64;

  private final SessionStore store;
  private final Runtime runtime;
  private final AgentClient agent;
  private final ArchiveStore archives;
  private final InstantSource clock;
  private final LifecycleSettings settings;
  private final RecoveryMode recovery;
  private final Failpoints failpoints;

  public Reconciler(
      SessionStore store,
      Runtime runtime,
      AgentClient agent,
      ArchiveStore archives,
      InstantSource clock,
      LifecycleSettings settings,
      RecoveryMode recovery,
      Failpoints failpoints) {
    this.store = store;
    this.runtime = runtime;
    this.agent = agent;
    this.archives = archives;
    this.clock = clock;
    this.settings = settings;
    this.recovery = recovery;
    this.failpoints = failpoints;
  }

  /**
   * One pass: takes the lease, steps until the session converges or waits, releases the lease. A
   * crash (any {@link Error}, as failpoints throw) leaves the lease to expire, as a dead process
   * would.
   */
  public ReconcileResult reconcile(SessionId id) {
    if (recovery.active()) {
      return ReconcileResult.RECOVERY_NEEDED;
    }
    Optional<Lease> taken = store.leases().acquire(id, settings.holder(), settings.leaseTtl());
    if (taken.isEmpty()) {
      return ReconcileResult.LEASE_BUSY;
    }
    ReconcileResult result;
    try {
      result = new Pass(id, taken.get()).run();
    } catch (RuntimeException e) {
      store.leases().release(taken.get());
      throw e;
    }
    store.leases().release(taken.get());
    return result;
  }

  /** What one step decided. */
  private enum Next {
    CONTINUE,
    CONVERGED,
    WAITING,
    RECOVERY_NEEDED
  }

  /** One pass over one session under one lease; remembers what it started itself. */
  private final class Pass {
    private final SessionId id;
    private final Lease lease;
    private final Set<OperationId> startedHere = new HashSet<>();
    private final Set<String> provisionedHere = new HashSet<>();
    private final Set<Long> preparedHere = new HashSet<>();

    Pass(SessionId id, Lease lease) {
      this.id = id;
      this.lease = lease;
    }

    ReconcileResult run() {
      for (int i = 0; i < MAX_STEPS; i++) {
        Optional<Session> found = store.get(id);
        if (found.isEmpty()) {
          return ReconcileResult.NOT_FOUND;
        }
        Session s = supersedeStale(found.get());
        Next next = step(s);
        switch (next) {
          case CONTINUE -> {}
          case CONVERGED -> {
            finishServedOperations();
            return ReconcileResult.CONVERGED;
          }
          case WAITING -> {
            return ReconcileResult.WAITING;
          }
          case RECOVERY_NEEDED -> {
            return ReconcileResult.RECOVERY_NEEDED;
          }
        }
      }
      throw new IllegalStateException(
          "session " + id + " did not settle within " + MAX_STEPS + " reconcile steps");
    }

    private Next step(Session s) {
      return switch (s.intent().desired()) {
        case TERMINATED -> terminate(s);
        case SUSPENDED -> suspend(s);
        case RUNNING -> run(s);
      };
    }

    // ---- RUNNING ----------------------------------------------------------------------------

    private Next run(Session s) {
      return switch (s.phase()) {
        case REQUESTED -> startProvision(s);
        case PROVISIONING, RESUMING -> continueStart(s);
        case READY -> observe(s);
        case SUSPENDING -> abandonSuspend(s);
        case SUSPENDED -> startResume(s);
        case FAILED -> Next.CONVERGED;
        case TERMINATING, TERMINATED -> throw terminalPhaseUnderLiveIntent(s);
      };
    }

    private IllegalStateException terminalPhaseUnderLiveIntent(Session s) {
      return new IllegalStateException(
          s.subject()
              + " is "
              + s.phase()
              + " with intent "
              + s.intent().desired()
              + "; a TERMINATED intent can never change");
    }

    private Next startProvision(Session s) {
      Operation op = begin(s, OperationType.PROVISION, s.intent().version());
      save(op.step(StepName.PLAN_RUNTIME, "incarnation " + (s.incarnation() + 1), now()));
      save(s, s.startProvision(runtime.kind(), now()));
      return Next.CONTINUE;
    }

    private Next startResume(Session s) {
      Operation op = begin(s, OperationType.RESUME, s.intent().version());
      save(op.step(StepName.PLAN_RUNTIME, "incarnation " + (s.incarnation() + 1), now()));
      save(s, s.startResume(runtime.kind(), now()));
      return Next.CONTINUE;
    }

    /** PROVISIONING or RESUMING: create the planned runtime, restore, await readiness. */
    private Next continueStart(Session s) {
      RuntimeRef ref = s.runtime().orElseThrow();
      Operation op = startOperation(s);
      if (!op.hasStep(StepName.CREATE_RUNTIME, ref.name())) {
        op = save(op.step(StepName.CREATE_RUNTIME, ref.name(), now()));
      }
      if (provisionedHere.add(ref.name())) {
        // Once per pass, whatever earlier passes recorded: one may have died between recording
        // the step and creating the runtime, and creation is idempotent by name.
        failpoints.reach("start.create-runtime");
        runtime.provision(
            new RuntimeSpec(
                ref,
                s.workloadType(),
                new OwnershipLabels(settings.installation(), s.id(), ref.incarnation()),
                s.phase() == Phase.RESUMING));
      }
      return switch (runtime.observe(ref)) {
        case RuntimeObservation.Starting st -> Next.WAITING;
        case RuntimeObservation.Unknown u -> unreachable(s, u.detail());
        case RuntimeObservation.Gone g -> startFailed(s, op, g.detail());
        case RuntimeObservation.Running r -> becomeReady(s, op, r);
      };
    }

    private Next becomeReady(Session s, Operation op, RuntimeObservation.Running running) {
      Session next = s.runtimeObserved(now(), running.endpoint());
      boolean restoring = s.phase() == Phase.RESUMING;
      if (restoring) {
        // Sent on every pass that gets here, not only the one that recorded the step: a pass that
        // died (or lost the agent) after recording it left the runtime awaiting its archive, and
        // the agent answers a repeated restore of the same operation as it did the first.
        ArchiveRef archive = s.archive().orElseThrow();
        if (!op.hasStep(StepName.RESTORE_ARCHIVE, s.runtime().orElseThrow().name())) {
          op = save(op.step(StepName.RESTORE_ARCHIVE, s.runtime().orElseThrow().name(), now()));
        }
        failpoints.reach("resume.restore");
        Optional<Next> refused;
        try {
          refused = command(next, new AgentCommand.Restore(ctx(next, op), archive));
        } catch (AgentRefusedException e) {
          if (!e.reason().startsWith("ARCHIVE_")) {
            throw e; // not about the archive: the next pass tries again
          }
          return restoreRefused(s, op, archive, e);
        }
        if (refused.isPresent()) {
          return refused.get();
        }
      }
      String workspace =
          restoring
              ? "archive generation "
                  + s.archive().map(ArchiveRef::generation).orElse(0L)
                  + " restored and verified"
              : "fresh workspace in place";
      next =
          next.withCondition(
                  ConditionType.RUNTIME_READY,
                  ConditionStatus.TRUE,
                  "Healthy",
                  "the agent reports healthy",
                  now())
              .withCondition(
                  ConditionType.POLICY_APPLIED,
                  ConditionStatus.TRUE,
                  "Applied",
                  "resource limits and isolation applied",
                  now())
              .withCondition(
                  ConditionType.IDENTITY_BOUND,
                  ConditionStatus.TRUE,
                  "Bound",
                  "the agent token is bound to this runtime",
                  now())
              .withCondition(
                  ConditionType.WORKSPACE_READY, ConditionStatus.TRUE, "Ready", workspace, now())
              .becomeReady(now());
      failpoints.reach("start.before-ready");
      save(s, next);
      succeed(op);
      return Next.CONTINUE;
    }

    /**
     * The agent will not restore the archive (unsafe or corrupt): retrying cannot help, so the
     * resume fails with the agent's reason and the session with it. The archive is kept (it may be
     * inspected or recovered by hand); the awaiting runtime goes when the session is deleted.
     */
    private Next restoreRefused(
        Session s, Operation op, ArchiveRef archive, AgentRefusedException e) {
      FailureReason reason =
          switch (e.reason()) {
            case "ARCHIVE_UNSAFE" -> FailureReason.ARCHIVE_UNSAFE;
            case "ARCHIVE_MISSING" -> FailureReason.ARCHIVE_MISSING;
            default -> FailureReason.ARCHIVE_CORRUPT;
          };
      Failure why =
          new Failure(
              reason,
              "the agent refused to restore archive generation "
                  + archive.generation()
                  + " ("
                  + archive.uri()
                  + "): "
                  + e.getMessage());
      save(s, s.fail(why));
      save(op.fail(new OperationError(reason.name(), why.message()), now()));
      return Next.CONVERGED;
    }

    private Next startFailed(Session s, Operation op, String detail) {
      Session gone = s.runtimeGone(now(), "RuntimeLost", detail);
      Failure why =
          new Failure(
              FailureReason.RUNTIME_HEALTH,
              "runtime "
                  + s.runtime().orElseThrow().name()
                  + " disappeared while starting: "
                  + detail);
      save(s, gone.fail(why));
      save(op.fail(new OperationError(why.reason().name(), why.message()), now()));
      return Next.CONVERGED;
    }

    /** READY and RUNNING: observe the runtime and the agent; handle loss and lost contact. */
    private Next observe(Session s) {
      RuntimeRef ref = s.runtime().orElseThrow();
      return switch (runtime.observe(ref)) {
        case RuntimeObservation.Starting st -> Next.WAITING;
        case RuntimeObservation.Unknown u -> unreachable(s, u.detail());
        case RuntimeObservation.Gone g -> runtimeLost(s, g.detail());
        case RuntimeObservation.Running r -> observeAgent(s, r);
      };
    }

    private Next observeAgent(Session s, RuntimeObservation.Running running) {
      AgentStatus status;
      try {
        status = agent.status(s.runtime().orElseThrow());
      } catch (AgentUnreachableException e) {
        return unreachable(s, e.getMessage());
      }
      if (status.acceptedIntentVersion() > s.intent().version()) {
        return Next.RECOVERY_NEEDED;
      }
      Session observed = s.runtimeObserved(now(), running.endpoint());
      if (!status.healthy()) {
        // The workload ended inside a runtime that still exists (the shell exited, or the host
        // stopped it). It is reported, never restarted behind the user's back: the session fails
        // with a reason, and keeps its runtime (and output) until it is deleted.
        String why =
            "the agent reports the workload is no longer running (the shell exited or"
                + " was stopped); delete the session, or create a new one";
        save(
            s,
            observed
                .withCondition(
                    ConditionType.RUNTIME_READY,
                    ConditionStatus.FALSE,
                    "WorkloadExited",
                    why,
                    now())
                .fail(new Failure(FailureReason.RUNTIME_HEALTH, why)));
        return Next.CONVERGED;
      }
      save(s, observed);
      return Next.CONVERGED;
    }

    private Next unreachable(Session s, String detail) {
      save(s, s.runtimeUnreachable(now(), detail));
      return Next.WAITING;
    }

    /**
     * The runtime vanished. Its running executions are LOST (their outcome is unknown); the session
     * is restored from its last archive when allowed, else it fails with RUNTIME_LOST.
     */
    private Next runtimeLost(Session s, String detail) {
      Operation op = begin(s, OperationType.RECOVER, s.incarnation());
      op = save(op.step(StepName.MARK_LOST, detail, now()));
      for (Execution e : store.listExecutions(s.id())) {
        if (!e.state().isFinished()) {
          store.updateExecution(e.lose(now()), e.version());
        }
      }
      Session lost =
          s.runtimeGone(
              now(),
              "RUNTIME_LOST",
              "runtime " + s.runtime().orElseThrow().name() + " vanished: " + detail);
      boolean restorable = Phase.TABLE.allows(s.phase(), PhaseEvent.RECOVERY_STARTED);
      if (settings.restoreOnRuntimeLoss() && s.archive().isPresent() && restorable) {
        save(op.step(StepName.PLAN_RUNTIME, "incarnation " + (s.incarnation() + 1), now()));
        save(s, lost.startRecovery(runtime.kind(), now()));
        return Next.CONTINUE;
      }
      Failure why =
          new Failure(
              FailureReason.RUNTIME_LOST,
              "runtime vanished ("
                  + detail
                  + ") and "
                  + (s.archive().isEmpty()
                      ? "there is no archive to restore"
                      : restorable
                          ? "restoring on runtime loss is disabled"
                          : "it was not restored automatically while " + s.phase())
                  + "; delete the session or recover it from its last archive");
      save(s, lost.fail(why));
      save(op.fail(new OperationError(why.reason().name(), why.message()), now()));
      return Next.CONVERGED;
    }

    // ---- SUSPENDED --------------------------------------------------------------------------

    private Next suspend(Session s) {
      return switch (s.phase()) {
        case REQUESTED -> startProvision(s);
        case PROVISIONING, RESUMING -> continueStart(s);
        case READY -> startSuspend(s);
        case SUSPENDING -> continueSuspend(s);
        case SUSPENDED, FAILED -> Next.CONVERGED;
        case TERMINATING, TERMINATED -> throw terminalPhaseUnderLiveIntent(s);
      };
    }

    /** Records generation G on the operation before any side effect, then closes admission. */
    private Next startSuspend(Session s) {
      Operation op = begin(s, OperationType.SUSPEND, s.intent().version());
      long generation =
          Math.max(s.archive().map(ArchiveRef::generation).orElse(0L), op.generation()) + 1;
      save(
          op.withGeneration(generation)
              .step(StepName.PREPARING, "generation " + generation, now()));
      preparedHere.add(generation);
      save(s, s.startSuspend(now()));
      return Next.CONTINUE;
    }

    private Next continueSuspend(Session s) {
      long generation = inFlightGeneration(s);
      Operation op = begin(s, OperationType.SUSPEND, s.intent().version());
      if (op.generation() != generation) {
        // The suspend in flight was started for an older intent; this one carries it on.
        op =
            save(
                op.withGeneration(generation)
                    .step(StepName.PREPARING, "continues generation " + generation, now()));
      }
      boolean committed = s.archive().map(ArchiveRef::generation).orElse(0L) == generation;
      if (committed) {
        return removeSuspendedRuntime(s, op, generation);
      }
      if (runtime.observe(s.runtime().orElseThrow()) instanceof RuntimeObservation.Gone gone) {
        return runtimeLost(
            s,
            "during suspend, before generation " + generation + " was committed: " + gone.detail());
      }
      if (!preparedHere.contains(generation)) {
        // A pass that died between PREPARING and COMMITTING: the checkpoint may be half taken
        // and the workload paused. Abort G (the agent resumes the workload) and start over.
        return abortCheckpoint(s, op, generation);
      }
      failpoints.reach("suspend.prepare");
      AgentReply reply;
      try {
        reply =
            agent.send(
                s.runtime().orElseThrow(),
                new AgentCommand.PrepareCheckpoint(ctx(s, op), generation));
      } catch (AgentUnreachableException e) {
        return unreachable(s, e.getMessage());
      } catch (StaleIntentException e) {
        return Next.RECOVERY_NEEDED;
      } catch (AgentRefusedException e) {
        if (!e.reason().equals(ARCHIVE_REFUSED)) {
          throw e;
        }
        return snapshotRefused(s, op, e);
      }
      if (!(reply instanceof AgentReply.CheckpointTaken taken)
          || taken.archive().generation() != generation) {
        throw new IllegalStateException(
            s.subject()
                + " asked for checkpoint "
                + generation
                + " and the agent answered "
                + reply);
      }
      failpoints.reach("suspend.before-commit-record");
      // The runtime it was taken from is the one this suspend reclaims (checkpoint.reclaimed).
      save(s, s.archiveCommitted(taken.archive().takenFrom(s.runtime().orElseThrow().name())));
      save(op.step(StepName.COMMITTING, taken.archive().uri(), now()));
      deleteOlderArchives(s, generation);
      // The archive this one replaces may be another session's (a recovered session starts from
      // the deleted one's), which the listing above does not show.
      s.archive().ifPresent(this::deleteQuietly);
      failpoints.reach("suspend.after-commit");
      return Next.CONTINUE;
    }

    /**
     * The agent would not take the checkpoint: its restore would refuse the archive (too many
     * entries, too many bytes, a file too large). Retrying cannot help while the state stays as it
     * is, so the suspend is given up: the agent thawed the tree, the session goes back to READY,
     * the operation fails with the agent's reason, and the intent returns to RUNNING, written by
     * the reconciler with the reason, so that nothing retries it until someone asks again.
     */
    private Next snapshotRefused(Session s, Operation op, AgentRefusedException e) {
      // The session first: once its intent is RUNNING no pass asks for this checkpoint again, so
      // a crash before the operation is failed leaves nothing to repeat.
      save(
          s,
          s.abortSuspend(now())
              .withIntent(
                  DesiredState.RUNNING, now(), ACTOR, "snapshot refused: " + e.getMessage()));
      if (!op.state().isFinished()) {
        save(op.fail(new OperationError(e.reason(), e.getMessage()), now()));
      }
      return Next.CONTINUE;
    }

    /** Only behind a committed archive: remove the runtime, confirm it gone, release. */
    private Next removeSuspendedRuntime(Session s, Operation op, long generation) {
      if (s.runtime().isEmpty()) {
        save(s, s.completeSuspend(generation));
        succeed(op);
        return Next.CONTINUE;
      }
      RuntimeRef ref = s.runtime().get();
      if (!op.hasStep(StepName.REMOVE_RUNTIME, ref.name())) {
        op = save(op.step(StepName.REMOVE_RUNTIME, ref.name(), now()));
      }
      failpoints.reach("suspend.remove-runtime");
      return switch (runtime.remove(ref)) {
        case RemovalResult.Confirmed c -> {
          failpoints.reach("suspend.after-remove");
          save(
              s,
              s.runtimeGone(
                      now(),
                      "Suspended",
                      "runtime removed after archive generation " + generation + " was committed")
                  .completeSuspend(generation));
          succeed(op);
          yield Next.CONTINUE;
        }
        case RemovalResult.InProgress p -> Next.WAITING;
        case RemovalResult.Unconfirmed u -> unreachable(s, u.detail());
      };
    }

    /**
     * Once the session durably points at generation G, the older generations are nobody's: no
     * restore reads them again. Best effort: what a failure leaves is only storage, and the next
     * suspend tries again.
     */
    private void deleteQuietly(ArchiveRef archive) {
      try {
        archives.delete(archive);
      } catch (RuntimeException e) {
        // only storage is left behind
      }
    }

    private void deleteOlderArchives(Session s, long generation) {
      try {
        for (ArchiveRef older : archives.list(s.id())) {
          if (older.generation() < generation) {
            archives.delete(older);
          }
        }
      } catch (RuntimeException e) {
        // kept for the next suspend to delete
      }
    }

    private Next abortCheckpoint(Session s, Operation op, long generation) {
      op = save(op.step(StepName.ABORT_CHECKPOINT, "generation " + generation, now()));
      Optional<Next> refused = command(s, new AgentCommand.AbortCheckpoint(ctx(s, op), generation));
      if (refused.isPresent()) {
        return refused.get();
      }
      save(s, s.abortSuspend(now()));
      return Next.CONTINUE;
    }

    /** The intent moved on (RUNNING) during a suspend: access wins over the suspend. */
    private Next abandonSuspend(Session s) {
      long generation = inFlightGeneration(s);
      if (s.runtime().isEmpty()) {
        save(s, s.completeSuspend(generation));
        return Next.CONTINUE;
      }
      if (s.archive().map(ArchiveRef::generation).orElse(0L) == generation) {
        return finishCommittedSuspend(s, generation);
      }
      if (runtime.observe(s.runtime().get()) instanceof RuntimeObservation.Gone gone) {
        return runtimeLost(s, "during suspend: " + gone.detail());
      }
      Operation op = begin(s, SessionIntents.typeFor(s), s.intent().version());
      return abortCheckpoint(s, op, generation);
    }

    /**
     * The intent moved on after archive G was committed: the runtime may be half removed already,
     * so the suspend goes forward (from step 6, as the protocol says) and the session then resumes
     * from G. Aborting here could find the runtime gone and take it for lost.
     */
    private Next finishCommittedSuspend(Session s, long generation) {
      RuntimeRef ref = s.runtime().orElseThrow();
      return switch (runtime.remove(ref)) {
        case RemovalResult.Confirmed c -> {
          save(
              s,
              s.runtimeGone(
                      now(),
                      "Suspended",
                      "runtime removed after archive generation "
                          + generation
                          + " was committed; the session resumes from it")
                  .completeSuspend(generation));
          yield Next.CONTINUE;
        }
        case RemovalResult.InProgress p -> Next.WAITING;
        case RemovalResult.Unconfirmed u -> unreachable(s, u.detail());
      };
    }

    // ---- TERMINATED -------------------------------------------------------------------------

    private Next terminate(Session s) {
      return switch (s.phase()) {
        case TERMINATING -> continueTerminate(s);
        case TERMINATED -> applyRetention(s);
        case REQUESTED, PROVISIONING, READY, SUSPENDING, SUSPENDED, RESUMING, FAILED -> {
          Operation op = begin(s, OperationType.TERMINATE, s.intent().version());
          save(op.step(StepName.STOP_ADMISSION, "admission closed", now()));
          save(s, s.startTerminate(now()));
          yield Next.CONTINUE;
        }
      };
    }

    /** Forward only: stop the workload, remove the runtime, release, retain, complete. */
    private Next continueTerminate(Session s) {
      Operation op = begin(s, OperationType.TERMINATE, s.intent().version());
      if (s.runtime().isPresent()) {
        return removeTerminatedRuntime(s, op);
      }
      if (s.reservation() != Reservation.RELEASED) {
        save(op.step(StepName.RELEASE_RESERVATION, "runtime removal confirmed", now()));
        failpoints.reach("terminate.release");
        save(s, s.releaseReservation());
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
        Instant until = now().plus(settings.recoveryWindow());
        op = save(op.step(StepName.APPLY_RETENTION, "until " + until, now()));
        next =
            next.withObligation(
                ObligationAction.RETAIN_ARCHIVE,
                retained.get(),
                o -> o.retain(until, "kept for the recovery window"));
      }
      save(s, next.completeTerminate());
      succeed(op);
      return Next.CONTINUE;
    }

    private Next removeTerminatedRuntime(Session s, Operation op) {
      RuntimeRef ref = s.runtime().orElseThrow();
      if (!op.hasStep(StepName.CANCEL_EXECUTIONS, ref.name())) {
        op = save(op.step(StepName.CANCEL_EXECUTIONS, ref.name(), now()));
        cancelExecutions(s);
        try {
          agent.send(ref, new AgentCommand.Terminate(ctx(s, op)));
        } catch (AgentUnreachableException e) {
          // Removing the runtime below stops the workload as well; the tombstone is best effort.
          save(s, s.runtimeUnreachable(now(), e.getMessage()));
          return Next.CONTINUE;
        } catch (StaleIntentException e) {
          return Next.RECOVERY_NEEDED;
        }
      }
      if (!op.hasStep(StepName.REMOVE_RUNTIME, ref.name())) {
        op = save(op.step(StepName.REMOVE_RUNTIME, ref.name(), now()));
      }
      failpoints.reach("terminate.remove-runtime");
      String resource = Session.runtimeResource(ref);
      return switch (runtime.remove(ref)) {
        case RemovalResult.Confirmed c -> {
          failpoints.reach("terminate.after-remove");
          save(s, s.runtimeGone(now(), "Terminated", "runtime removed"));
          yield Next.CONTINUE;
        }
        case RemovalResult.InProgress p -> {
          save(
              s,
              s.withObligation(
                  ObligationAction.REMOVE_RUNTIME,
                  resource,
                  o -> o.state() == ObligationState.PENDING ? o : o.retry(p.detail())));
          yield Next.WAITING;
        }
        case RemovalResult.Unconfirmed u -> {
          save(
              s,
              s.withObligation(
                      ObligationAction.REMOVE_RUNTIME,
                      resource,
                      o -> o.state() == ObligationState.FAILED ? o : o.fail(u.detail()))
                  .runtimeUnreachable(now(), u.detail()));
          yield Next.WAITING;
        }
      };
    }

    private void cancelExecutions(Session s) {
      for (Execution e : store.listExecutions(s.id())) {
        if (!e.state().isFinished()) {
          store.updateExecution(e.cancel(now()), e.version());
        }
      }
    }

    /** TERMINATED: delete the retained archive once its recovery window ended. */
    private Next applyRetention(Session s) {
      var retained =
          s.openObligation(ObligationAction.RETAIN_ARCHIVE)
              .filter(o -> o.retainUntil().map(u -> !u.isAfter(now())).orElse(false));
      if (retained.isEmpty()) {
        return Next.CONVERGED;
      }
      String resource = retained.get().resource();
      Session deleting = s;
      if (retained.get().state() == ObligationState.RETAINED) {
        // Recorded before the file goes: a recovery that took the archive over meanwhile makes
        // this write fail, and nothing is deleted under it (it accepts only a RETAINED archive).
        save(
            s,
            s.withObligation(
                ObligationAction.RETAIN_ARCHIVE,
                resource,
                o -> o.retry("recovery window ended; deleting the archive")));
        deleting = store.get(s.id()).orElseThrow();
      }
      deleting.archive().ifPresent(archives::delete);
      save(
          deleting,
          deleting.withObligation(
              ObligationAction.RETAIN_ARCHIVE, resource, o -> o.complete("archive deleted")));
      return Next.CONVERGED;
    }

    // ---- operations and writes ----------------------------------------------------------------

    /** Supersedes unfinished operations that serve an older intent than the current one. */
    private Session supersedeStale(Session s) {
      for (Operation op : store.listOperations(s.id())) {
        if (!op.state().isFinished()
            && op.intentVersion() < s.intent().version()
            && op.type() != OperationType.RECOVER) {
          save(op.supersede(s.intent().version(), now()));
        }
      }
      return s;
    }

    /** Marks operations that served the current intent as succeeded once it is reached. */
    private void finishServedOperations() {
      Session s = store.get(id).orElseThrow();
      for (Operation op : store.listOperations(id)) {
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
    private Operation begin(Session s, OperationType type, long n) {
      Operation recorded =
          store.createOperation(
              Operation.pending(
                  OperationId.of(s.id(), type, n),
                  s.id(),
                  type,
                  s.intent().version(),
                  now(),
                  now().plus(settings.operationTimeout())));
      if (recorded.state().isFinished()) {
        return recorded;
      }
      if (startedHere.add(recorded.id())) {
        return save(recorded.attempt());
      }
      return recorded;
    }

    /** The unfinished operation that started the session's current runtime. */
    private Operation startOperation(Session s) {
      return store.listOperations(s.id()).stream()
          .filter(o -> !o.state().isFinished())
          .filter(
              o ->
                  o.type() == OperationType.PROVISION
                      || o.type() == OperationType.RESUME
                      || o.type() == OperationType.RECOVER)
          .max(Comparator.comparing(Operation::createdAt))
          .map(o -> startedHere.add(o.id()) ? save(o.attempt()) : o)
          .orElseGet(() -> begin(s, SessionIntents.typeFor(s), s.intent().version()));
    }

    /** The archive generation of the suspend in flight, recorded before any side effect. */
    private long inFlightGeneration(Session s) {
      return store.listOperations(s.id()).stream()
          .filter(o -> o.type() == OperationType.SUSPEND)
          .mapToLong(Operation::generation)
          .max()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      s.subject() + " is " + s.phase() + " but no SUSPEND operation recorded"));
    }

    private Optional<Next> command(Session s, AgentCommand command) {
      try {
        agent.send(s.runtime().orElseThrow(), command);
        return Optional.empty();
      } catch (AgentUnreachableException e) {
        return Optional.of(unreachable(s, e.getMessage()));
      } catch (StaleIntentException e) {
        return Optional.of(Next.RECOVERY_NEEDED);
      }
    }

    private CommandContext ctx(Session s, Operation op) {
      return new CommandContext(
          s.id(), s.intent().version(), now().plus(settings.commandTimeout()), op.id());
    }

    private void save(Session before, Session after) {
      if (after.equals(before)) {
        return;
      }
      store.compareAndSet(after, before.version(), lease.token());
      if (after.phase() != before.phase()) {
        store.append(
            AuditEvent.of(
                id,
                now(),
                settings.holder(),
                "session.phase",
                before.phase() + " -> " + after.phase()));
      }
    }

    /** Marks {@code op} succeeded unless an earlier pass already finished it. */
    private void succeed(Operation op) {
      Operation current = store.getOperation(op.id()).orElse(op);
      if (!current.state().isFinished()) {
        save(current.succeed(now()));
      }
    }

    private Operation save(Operation op) {
      return store.updateOperation(op, op.version(), lease.token());
    }

    private Instant now() {
      return clock.instant();
    }
  }
}
