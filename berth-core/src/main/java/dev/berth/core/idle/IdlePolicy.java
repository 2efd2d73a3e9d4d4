package dev.berth.core.idle;

import dev.berth.core.session.Activity;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides when an unused session gives its compute back (STATE-MODEL.md §4, "Idle policy"): no
 * client access for {@code suspendAfter}, and no keep-alive, running execution, busy shell or tool
 * call waiting for approval holds it (busy work, a waiting call included, holds it at most {@code
 * maxBusy}). Pure: the caller brings the time, the session and what the runtime reports, and
 * re-checks under the session lease before it acts.
 */
public final class IdlePolicy {

  /**
   * Who asks for the suspensions this policy decides, in the intent it writes: an access to a
   * session whose suspend this actor asked for wins over the suspend (it is aborted), while one
   * asked for by a person (a snapshot) makes a write wait with 409 SUSPENDING.
   */
  public static final String ACTOR = "idle-policy";

  private final IdleSettings settings;

  public IdlePolicy(IdleSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  public IdleSettings settings() {
    return settings;
  }

  public IdleDecision decide(Session session, WorkloadActivity workload, Instant now) {
    if (session.phase() != Phase.READY) {
      return new IdleDecision.NotApplicable("the session is " + session.phase() + ", not READY");
    }
    if (session.intent().desired() != DesiredState.RUNNING) {
      return new IdleDecision.NotApplicable(
          "the session is asked to be " + session.intent().desired());
    }
    Activity activity = session.activity();
    if (session.intent().requestedBy().equals(dev.berth.core.lifecycle.Reconciler.ACTOR)
        && !activity.lastAccess().isAfter(session.intent().requestedAt())) {
      // The last suspend was refused (its archive would not restore): asking again before the
      // session changes would only be refused again.
      return new IdleDecision.NotApplicable(
          "the last snapshot was refused ("
              + session.intent().reason()
              + "); the next access"
              + " lets the idle policy try again");
    }
    Instant idleAt = activity.lastAccess().plus(settings.idleAfter());
    Instant suspendAt = activity.lastAccess().plus(settings.suspendAfter());
    if (now.isBefore(idleAt)) {
      return new IdleDecision.Active(idleAt, suspendAt);
    }
    if (now.isBefore(suspendAt)) {
      return new IdleDecision.Idle(idleAt, suspendAt);
    }
    return hold(activity, workload, now).orElseGet(() -> new IdleDecision.Suspend(idleAt));
  }

  private Optional<IdleDecision> hold(Activity activity, WorkloadActivity workload, Instant now) {
    Optional<Instant> keepAlive = activity.keepAliveUntil().filter(now::isBefore);
    if (keepAlive.isPresent()) {
      return Optional.of(new IdleDecision.Held(IdleDecision.Hold.KEEP_ALIVE, keepAlive.get()));
    }
    Instant busyUntil = workload.busySince().orElse(now).plus(settings.maxBusy());
    if (!now.isBefore(busyUntil)) {
      return Optional.empty();
    }
    // Somebody was asked, and a suspend would cancel the question before they could answer; but a
    // waiting call is busy work like any other: maxBusy stays the bound, so a stream of approvals
    // (or one nobody withdrew) cannot hold a session for ever.
    Optional<Instant> approval = workload.approvalPendingUntil().filter(now::isBefore);
    if (approval.isPresent()) {
      Instant until = approval.get().isBefore(busyUntil) ? approval.get() : busyUntil;
      return Optional.of(new IdleDecision.Held(IdleDecision.Hold.APPROVAL_PENDING, until));
    }
    if (workload.executionRunning()) {
      return Optional.of(new IdleDecision.Held(IdleDecision.Hold.EXECUTION_RUNNING, busyUntil));
    }
    if (workload.shellBusy()) {
      return Optional.of(new IdleDecision.Held(IdleDecision.Hold.SHELL_BUSY, busyUntil));
    }
    return Optional.empty();
  }
}
