package dev.berth.core.lifecycle;

import dev.berth.core.agent.AgentClient;
import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.runtime.Runtime;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.Lease;
import dev.berth.core.store.LeaseKeeper;
import dev.berth.core.store.SessionStore;
import java.time.InstantSource;
import java.util.Optional;

/**
 * Drives one session from its observed state towards its intent, one durable step at a time, under
 * the session lease.
 *
 * <p>Implementation notes.
 *
 * <p>Level-triggered: each step re-reads the session and decides from (intent, phase) alone, so a
 * pass that was interrupted anywhere — a crash, a lost lease — is finished by the next one. Every
 * decision writes its record (operation step, planned runtime, committed archive) before the side
 * effect it announces; every write carries the lease's fencing token, so a holder that lost the
 * lease can no longer change anything.
 *
 * <p>Protocols (STATE-MODEL.md §4), one class each: {@link ProvisionProtocol} and {@link
 * ResumeProtocol} plan runtime incarnation n+1 by name before creating it; {@link SuspendProtocol}
 * records generation G, asks the agent for a checkpoint, records the committed archive, and only
 * then removes the runtime, and {@link SuspendAbort} aborts a suspend found half-done whose archive
 * was not committed (the workload resumes); {@link TerminateProtocol} goes forward only, keeping
 * what it could not do as obligations; {@link RuntimeWatch} observes a runtime that should be
 * running. This class only takes the lease and dispatches each step on (intent, phase); {@link
 * ReconcilePass} holds what the steps of one pass share.
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

  private static final int MAX_STEPS = 64;

  private final LifecyclePorts ports;
  private final RecoveryMode recovery;
  private final LeaseKeeper keeper;

  public Reconciler(
      SessionStore store,
      Runtime runtime,
      AgentClient agent,
      ArchiveStore archives,
      InstantSource clock,
      LifecycleSettings settings,
      RecoveryMode recovery,
      Failpoints failpoints) {
    this(store, runtime, agent, archives, clock, settings, recovery, failpoints, LeaseKeeper.NONE);
  }

  /**
   * @param keeper keeps the session lease alive while a pass runs (a pass may wait minutes on a
   *     drain or an upload); {@link LeaseKeeper#NONE} where passes are always short
   */
  public Reconciler(
      SessionStore store,
      Runtime runtime,
      AgentClient agent,
      ArchiveStore archives,
      InstantSource clock,
      LifecycleSettings settings,
      RecoveryMode recovery,
      Failpoints failpoints,
      LeaseKeeper keeper) {
    this(
        store,
        runtime,
        agent,
        archives,
        clock,
        settings,
        recovery,
        failpoints,
        keeper,
        OperationEvents.NONE);
  }

  /**
   * @param keeper keeps the session lease alive while a pass runs (a pass may wait minutes on a
   *     drain or an upload); {@link LeaseKeeper#NONE} where passes are always short
   * @param events told of every operation the passes record or change (the server's log and
   *     metrics)
   */
  public Reconciler(
      SessionStore store,
      Runtime runtime,
      AgentClient agent,
      ArchiveStore archives,
      InstantSource clock,
      LifecycleSettings settings,
      RecoveryMode recovery,
      Failpoints failpoints,
      LeaseKeeper keeper,
      OperationEvents events) {
    this.ports =
        new LifecyclePorts(store, runtime, agent, archives, clock, settings, failpoints, events);
    this.recovery = recovery;
    this.keeper = keeper;
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
    SessionStore store = ports.store();
    Optional<Lease> taken =
        store.leases().acquire(id, ports.settings().holder(), ports.settings().leaseTtl());
    if (taken.isEmpty()) {
      return ReconcileResult.LEASE_BUSY;
    }
    ReconcileResult result;
    LeaseKeeper.Kept kept = keeper.keep(taken.get(), ports.settings().leaseTtl());
    try {
      result = run(new ReconcilePass(ports, id, taken.get()));
    } catch (RuntimeException e) {
      kept.close();
      store.leases().release(taken.get());
      throw e;
    } catch (Error crash) {
      // A crash stops the renewals and leaves the lease to expire, as a dead process would.
      kept.close();
      throw crash;
    }
    kept.close();
    store.leases().release(taken.get());
    return result;
  }

  private static ReconcileResult run(ReconcilePass pass) {
    Protocols protocols = Protocols.of(pass);
    for (int i = 0; i < MAX_STEPS; i++) {
      Optional<Session> found = pass.read();
      if (found.isEmpty()) {
        return ReconcileResult.NOT_FOUND;
      }
      pass.supersedeStale(found.get());
      switch (protocols.step(found.get())) {
        case CONTINUE -> {}
        case CONVERGED -> {
          pass.finishServedOperations();
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
        "session " + pass.id() + " did not settle within " + MAX_STEPS + " reconcile steps");
  }

  /** The protocols of one pass, and which of them takes the next step of a session. */
  private record Protocols(
      ProvisionProtocol provision,
      ResumeProtocol resume,
      SuspendProtocol suspend,
      SuspendAbort abort,
      TerminateProtocol terminate,
      RuntimeWatch watch) {

    static Protocols of(ReconcilePass pass) {
      RuntimeWatch watch = new RuntimeWatch(pass);
      ResumeProtocol resume = new ResumeProtocol(pass);
      SuspendAbort abort = new SuspendAbort(pass, watch);
      return new Protocols(
          new ProvisionProtocol(pass, resume),
          resume,
          new SuspendProtocol(pass, watch, abort),
          abort,
          new TerminateProtocol(pass),
          watch);
    }

    Next step(Session s) {
      return switch (s.intent().desired()) {
        case TERMINATED -> terminate.step(s);
        case SUSPENDED -> towardsSuspended(s);
        case RUNNING -> towardsRunning(s);
      };
    }

    private Next towardsRunning(Session s) {
      return switch (s.phase()) {
        case REQUESTED -> provision.start(s);
        case PROVISIONING, RESUMING -> provision.proceed(s);
        case READY -> watch.observe(s);
        case SUSPENDING -> abort.abandon(s);
        case SUSPENDED -> resume.start(s);
        case FAILED -> Next.CONVERGED;
        case TERMINATING, TERMINATED -> throw terminalPhaseUnderLiveIntent(s);
      };
    }

    private Next towardsSuspended(Session s) {
      return switch (s.phase()) {
        case REQUESTED -> provision.start(s);
        case PROVISIONING, RESUMING -> provision.proceed(s);
        case READY -> suspend.start(s);
        case SUSPENDING -> suspend.proceed(s);
        case SUSPENDED, FAILED -> Next.CONVERGED;
        case TERMINATING, TERMINATED -> throw terminalPhaseUnderLiveIntent(s);
      };
    }

    private static IllegalStateException terminalPhaseUnderLiveIntent(Session s) {
      return new IllegalStateException(
          s.subject()
              + " is "
              + s.phase()
              + " with intent "
              + s.intent().desired()
              + "; a TERMINATED intent can never change");
    }
  }
}
