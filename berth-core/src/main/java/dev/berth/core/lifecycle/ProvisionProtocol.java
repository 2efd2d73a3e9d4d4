package dev.berth.core.lifecycle;

import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationType;
import dev.berth.core.operation.StepName;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.ConditionStatus;
import dev.berth.core.session.ConditionType;
import dev.berth.core.session.Failure;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.Phase;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Provision, and the part every start shares: bringing a planned runtime up to READY. A PROVISION,
 * a RESUME and a RECOVER all plan runtime incarnation n+1 by name before creating it; this class
 * creates the planned runtime, has {@link ResumeProtocol} restore the archive when resuming, and
 * declares the session READY only when the readiness conjunction holds (runtime healthy, policy
 * applied, identity bound, workspace in place).
 *
 * <p>Failure modes: a crash between recording the runtime and creating it is repaired by creating
 * it again (creation is idempotent by name); a runtime that disappears while starting fails the
 * session with RUNTIME_HEALTH; one that exists but will not run (or is still not running at the
 * operation's deadline) fails the session with the runtime's own reason and keeps its reservation
 * until its removal is confirmed; lost contact waits, starting nothing else.
 */
final class ProvisionProtocol {
  private final ReconcilePass pass;
  private final LifecyclePorts ports;
  private final ResumeProtocol resume;
  private final Set<String> provisionedHere = new HashSet<>();

  ProvisionProtocol(ReconcilePass pass, ResumeProtocol resume) {
    this.pass = pass;
    this.ports = pass.ports();
    this.resume = resume;
  }

  /** REQUESTED: plans the first runtime incarnation. */
  Next start(Session s) {
    Operation op = pass.begin(s, OperationType.PROVISION, s.intent().version());
    pass.save(op.step(StepName.PLAN_RUNTIME, "incarnation " + (s.incarnation() + 1), pass.now()));
    pass.save(s, s.startProvision(ports.runtime().kind(), pass.now()));
    return Next.CONTINUE;
  }

  /**
   * PROVISIONING or RESUMING: create the planned runtime, restore, await readiness.
   *
   * <p>The runtime is created by the pass that records the CREATE_RUNTIME step, and again by a
   * later pass only when it is observed gone: that pass's predecessor may have died between
   * recording the step and creating the runtime (or half-way through creating it), and creation is
   * idempotent by name. A runtime that exists is not created again on every pass that waits for it
   * to start (on Kubernetes, that was five more API writes per session).
   */
  Next proceed(Session s) {
    RuntimeRef ref = s.runtime().orElseThrow();
    Operation op = pass.startOperation(s);
    boolean recorded = op.hasStep(StepName.CREATE_RUNTIME, ref.name());
    if (!recorded) {
      op = pass.save(op.step(StepName.CREATE_RUNTIME, ref.name(), pass.now()));
    }
    RuntimeObservation seen =
        recorded
            ? ports.runtime().observe(ref)
            : new RuntimeObservation.Gone("runtime " + ref.name() + " is not created yet");
    if (seen instanceof RuntimeObservation.Gone && provisionedHere.add(ref.name())) {
      pass.reach("start.create-runtime");
      ports
          .runtime()
          .provision(
              new RuntimeSpec(
                  ref,
                  s.workloadType(),
                  s.model(),
                  s.plugins(),
                  new OwnershipLabels(ports.settings().installation(), s.id(), ref.incarnation()),
                  s.phase() == Phase.RESUMING));
      seen = ports.runtime().observe(ref);
    }
    return switch (seen) {
      case RuntimeObservation.Starting st -> awaitStart(s, op, st);
      case RuntimeObservation.Unknown u -> pass.unreachable(s, u.detail());
      case RuntimeObservation.Gone g -> startFailed(s, op, g.detail());
      case RuntimeObservation.Failed f -> cannotStart(s, op, f.reason(), f.detail());
      case RuntimeObservation.Running r -> becomeReady(s, op, r);
    };
  }

  /**
   * A start waits until the operation's deadline, and no longer: a pod that no node has room for,
   * or whose image pull keeps backing off, fails with that reason (the last one seen) rather than
   * provisioning for ever; one that simply took too long fails with DEADLINE_EXCEEDED.
   */
  private Next awaitStart(Session s, Operation op, RuntimeObservation.Starting starting) {
    if (pass.now().isBefore(op.deadline())) {
      return Next.WAITING;
    }
    return cannotStart(
        s,
        op,
        starting.stalledBy().orElse(FailureReason.DEADLINE_EXCEEDED),
        "not running by the start deadline " + op.deadline() + ": " + starting.detail());
  }

  /**
   * The runtime exists but will not run. The session fails and keeps its runtime, whose removal
   * (when the session is deleted) is confirmed before the reservation is released: a pod that may
   * still start must go on counting against the quota.
   */
  private Next cannotStart(Session s, Operation op, FailureReason reason, String detail) {
    String message =
        "runtime "
            + s.runtime().orElseThrow().name()
            + " cannot start: "
            + detail
            + "; delete the session (or recover it) once the cause is fixed";
    Session failing =
        s.withCondition(
            ConditionType.RUNTIME_READY, ConditionStatus.FALSE, reason.name(), detail, pass.now());
    return pass.fail(s, failing, op, new Failure(reason, message));
  }

  private Next becomeReady(Session s, Operation op, RuntimeObservation.Running running) {
    Session next = s.runtimeObserved(pass.now(), running.endpoint());
    boolean restoring = s.phase() == Phase.RESUMING;
    if (restoring) {
      Optional<Next> stopped = resume.restore(s, next, op);
      if (stopped.isPresent()) {
        return stopped.get();
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
                pass.now())
            .withCondition(
                ConditionType.POLICY_APPLIED,
                ConditionStatus.TRUE,
                "Applied",
                "resource limits and isolation applied",
                pass.now())
            .withCondition(
                ConditionType.IDENTITY_BOUND,
                ConditionStatus.TRUE,
                "Bound",
                "the agent token is bound to this runtime",
                pass.now())
            .withCondition(
                ConditionType.WORKSPACE_READY, ConditionStatus.TRUE, "Ready", workspace, pass.now())
            .becomeReady(pass.now());
    pass.reach("start.before-ready");
    pass.save(s, next);
    pass.succeed(op);
    return Next.CONTINUE;
  }

  private Next startFailed(Session s, Operation op, String detail) {
    Session gone = s.runtimeGone(pass.now(), "RuntimeLost", detail);
    Failure why =
        new Failure(
            FailureReason.RUNTIME_HEALTH,
            "runtime "
                + s.runtime().orElseThrow().name()
                + " disappeared while starting: "
                + detail);
    return pass.fail(s, gone, op, why);
  }
}
