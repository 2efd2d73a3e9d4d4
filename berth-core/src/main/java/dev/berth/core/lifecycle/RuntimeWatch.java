package dev.berth.core.lifecycle;

import dev.berth.core.agent.AgentStatus;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.execution.Execution;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationType;
import dev.berth.core.operation.StepName;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.session.ConditionStatus;
import dev.berth.core.session.ConditionType;
import dev.berth.core.session.Failure;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.Phase;
import dev.berth.core.session.PhaseEvent;
import dev.berth.core.session.Session;
import dev.berth.core.store.SessionStore;

/**
 * Watches the runtime of a session that should have one: lost contact, a runtime that vanished, a
 * workload that exited inside a runtime that still exists, an agent that knows a newer intent.
 *
 * <p>Failure modes: lost contact marks the runtime Unknown and the reservation UNCERTAIN and starts
 * nothing (no second runtime while the first may live); a vanished runtime loses its running
 * executions and is restored from its last archive when allowed, else the session fails with
 * RUNTIME_LOST; a runtime its host stopped is reported, never restarted behind the user's back (a
 * shell that exits is not that: the agent starts a new one on the next input); an agent that
 * accepted a newer intent than the store holds means the store is older than reality, and the pass
 * stops with RECOVERY_NEEDED.
 */
final class RuntimeWatch {
  private final ReconcilePass pass;
  private final LifecyclePorts ports;

  RuntimeWatch(ReconcilePass pass) {
    this.pass = pass;
    this.ports = pass.ports();
  }

  /** READY and RUNNING: observe the runtime and the agent; handle loss and lost contact. */
  Next observe(Session s) {
    return switch (ports.runtime().observe(s.runtime().orElseThrow())) {
      case RuntimeObservation.Starting st -> Next.WAITING;
      case RuntimeObservation.Unknown u -> pass.unreachable(s, u.detail());
      case RuntimeObservation.Gone g -> runtimeLost(s, g.detail());
      case RuntimeObservation.Failed f -> runtimeFailed(s, f);
      case RuntimeObservation.Running r -> observeAgent(s, r);
    };
  }

  /**
   * The runtime still exists but its agent stopped for a reason the runtime names (killed for
   * memory, evicted, crash-looping). Like an exited workload it is reported, not replaced behind
   * the user's back: the session fails with that reason and keeps its runtime until deleted or
   * recovered, so the reservation stays until the removal is confirmed.
   */
  private Next runtimeFailed(Session s, RuntimeObservation.Failed failed) {
    String why =
        "runtime "
            + s.runtime().orElseThrow().name()
            + " stopped: "
            + failed.detail()
            + "; recover the session from its last archive, or delete it";
    pass.save(
        s,
        s.withCondition(
                ConditionType.RUNTIME_READY,
                ConditionStatus.FALSE,
                failed.reason().name(),
                failed.detail(),
                pass.now())
            .fail(new Failure(failed.reason(), why)));
    return Next.CONVERGED;
  }

  private Next observeAgent(Session s, RuntimeObservation.Running running) {
    AgentStatus status;
    try {
      status = ports.agent().status(s.runtime().orElseThrow());
    } catch (AgentUnreachableException e) {
      return pass.unreachable(s, e.getMessage());
    }
    if (status.acceptedIntentVersion() > s.intent().version()) {
      return Next.RECOVERY_NEEDED;
    }
    Session observed = s.runtimeObserved(pass.now(), running.endpoint());
    if (!status.healthy()) {
      return hostStopped(s, observed, status);
    }
    pass.save(s, observed);
    return Next.CONVERGED;
  }

  /**
   * The host stopped the runtime while it still exists (its control lease expired, its maximum
   * lifetime passed, its node restarted). A shell that exits is not such an end: the agent keeps
   * the runtime running and starts a new shell on the next input. A stopped runtime is reported,
   * never restarted behind the user's back: the session fails with the host's reason, and keeps its
   * runtime (and output) until it is deleted, so that exactly one runtime ever ran for it.
   */
  private Next hostStopped(Session s, Session observed, AgentStatus status) {
    String reason = status.stopReason().orElse("WorkloadExited");
    boolean leaseExpired = AgentStatus.LEASE_EXPIRED.equals(reason);
    String why =
        leaseExpired
            ? "the control lease of runtime "
                + s.runtime().orElseThrow().name()
                + " expired while the control plane was away and its host stopped the workload"
                + " under the session's disconnect policy (LEASE_EXPIRED); its output stays"
                + " readable; delete the session, or create a new one"
            : "the agent reports the runtime is no longer running (its host stopped it: "
                + status
                    .stopReason()
                    .orElse("control lease expired, maximum lifetime reached or node restarted")
                + "); its output stays readable; delete the session, or create a new one";
    pass.save(
        s,
        observed
            .withCondition(
                ConditionType.RUNTIME_READY, ConditionStatus.FALSE, reason, why, pass.now())
            .fail(
                new Failure(
                    leaseExpired ? FailureReason.LEASE_EXPIRED : FailureReason.RUNTIME_HEALTH,
                    why)));
    return Next.CONVERGED;
  }

  /**
   * The runtime vanished. Its running executions are LOST (their outcome is unknown); the session
   * is restored from its last archive when allowed, else it fails with RUNTIME_LOST.
   */
  Next runtimeLost(Session s, String detail) {
    Operation op = pass.begin(s, OperationType.RECOVER, s.incarnation());
    op = pass.save(op.step(StepName.MARK_LOST, detail, pass.now()));
    SessionStore store = ports.store();
    for (Execution e : store.listExecutions(s.id())) {
      if (!e.state().isFinished()) {
        store.updateExecution(e.lose(pass.now()), e.version());
      }
    }
    Session lost =
        s.runtimeGone(
            pass.now(),
            "RUNTIME_LOST",
            "runtime " + s.runtime().orElseThrow().name() + " vanished: " + detail);
    boolean restorable = Phase.TABLE.allows(s.phase(), PhaseEvent.RECOVERY_STARTED);
    if (ports.settings().restoreOnRuntimeLoss() && s.archive().isPresent() && restorable) {
      pass.save(op.step(StepName.PLAN_RUNTIME, "incarnation " + (s.incarnation() + 1), pass.now()));
      pass.save(s, lost.startRecovery(ports.runtime().kind(), pass.now()));
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
    return pass.fail(s, lost, op, why);
  }
}
