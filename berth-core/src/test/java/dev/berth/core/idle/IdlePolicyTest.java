package dev.berth.core.idle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.session.Activity;
import dev.berth.core.session.Session;
import dev.berth.core.testing.TestSessions;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class IdlePolicyTest {

  private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
  private static final Duration TICK = Duration.ofNanos(1);
  private final IdlePolicy policy = new IdlePolicy(IdleSettings.defaults());
  private final Session ready = TestSessions.ready(T0);

  @Test
  void aSessionAccessedRecentlyIsActiveUntilIdleAfter() {
    IdleDecision decision = policy.decide(ready, WorkloadActivity.quiet(), T0.plusSeconds(599));

    assertThat(decision)
        .isEqualTo(new IdleDecision.Active(T0.plus(Duration.ofMinutes(10)), at(60)));
  }

  @Test
  void anIdleSessionKeepsItsRuntimeUntilSuspendAfter() {
    IdleDecision decision = policy.decide(ready, WorkloadActivity.quiet(), at(60).minus(TICK));

    assertThat(decision).isEqualTo(new IdleDecision.Idle(at(10), at(60)));
  }

  @Test
  void anIdleSessionIsSuspendedAtTheBoundaryAndNotOneTickBefore() {
    assertThat(policy.decide(ready, WorkloadActivity.quiet(), at(60).minus(TICK)))
        .isInstanceOf(IdleDecision.Idle.class);
    assertThat(policy.decide(ready, WorkloadActivity.quiet(), at(60)))
        .isEqualTo(new IdleDecision.Suspend(at(10)));
  }

  @Test
  void aKeepAliveHoldsTheSessionUntilItEnds() {
    Session kept = ready.withActivity(new Activity(T0, Optional.of(at(90)), Optional.empty()));

    assertThat(policy.decide(kept, WorkloadActivity.quiet(), at(89)))
        .isEqualTo(new IdleDecision.Held(IdleDecision.Hold.KEEP_ALIVE, at(90)));
    assertThat(policy.decide(kept, WorkloadActivity.quiet(), at(90)))
        .isInstanceOf(IdleDecision.Suspend.class);
  }

  @Test
  void aRunningExecutionHoldsTheSessionAtMostMaxBusy() {
    WorkloadActivity running = new WorkloadActivity(false, true, Optional.of(at(30)));

    assertThat(policy.decide(ready, running, at(61)))
        .isEqualTo(new IdleDecision.Held(IdleDecision.Hold.EXECUTION_RUNNING, at(30 + 4 * 60)));
    assertThat(policy.decide(ready, running, at(30 + 4 * 60)))
        .isInstanceOf(IdleDecision.Suspend.class);
  }

  @Test
  void aBusyShellHoldsTheSessionAtMostMaxBusy() {
    WorkloadActivity busy = new WorkloadActivity(true, false, Optional.of(at(50)));

    assertThat(policy.decide(ready, busy, at(70)))
        .isEqualTo(new IdleDecision.Held(IdleDecision.Hold.SHELL_BUSY, at(50 + 4 * 60)));
    assertThat(policy.decide(ready, busy, at(50 + 4 * 60)))
        .isInstanceOf(IdleDecision.Suspend.class);
  }

  @Test
  void aToolCallWaitingForApprovalHoldsTheSessionUntilTheApprovalExpires() {
    WorkloadActivity waiting =
        WorkloadActivity.quiet().withApprovalPending(Optional.of(at(60).plusSeconds(300)));

    assertThat(policy.decide(ready, waiting, at(61)))
        .isEqualTo(
            new IdleDecision.Held(IdleDecision.Hold.APPROVAL_PENDING, at(60).plusSeconds(300)));
    assertThat(policy.decide(ready, waiting, at(60).plusSeconds(300)))
        .isInstanceOf(IdleDecision.Suspend.class);
  }

  @Test
  void aWaitingApprovalHoldsTheSessionAtMostMaxBusyFromWhenTheWorkBegan() {
    WorkloadActivity waiting =
        new WorkloadActivity(false, false, Optional.of(at(30)), Optional.of(at(30 + 5 * 60)));

    assertThat(policy.decide(ready, waiting, at(61)))
        .as("maxBusy (4 h from at(30)) ends before the approval expires")
        .isEqualTo(new IdleDecision.Held(IdleDecision.Hold.APPROVAL_PENDING, at(30 + 4 * 60)));
    assertThat(policy.decide(ready, waiting, at(30 + 4 * 60)))
        .isInstanceOf(IdleDecision.Suspend.class);
  }

  @Test
  void aWaitingApprovalCountsAsBusyWorkUntilItExpires() {
    WorkloadActivity waiting = WorkloadActivity.quiet().withApprovalPending(Optional.of(at(70)));

    assertThat(waiting.busyAt(at(69))).isTrue();
    assertThat(waiting.busyAt(at(70))).isFalse();
    assertThat(WorkloadActivity.quiet().busyAt(at(69))).isFalse();
    assertThat(new WorkloadActivity(true, false, Optional.empty()).busyAt(at(69))).isTrue();
  }

  @Test
  void aWaitingApprovalHoldsEvenAQuietRuntimeButNotAnActiveSessionsTimeline() {
    WorkloadActivity waiting = WorkloadActivity.quiet().withApprovalPending(Optional.of(at(120)));

    assertThat(policy.decide(ready, waiting, at(5))).isInstanceOf(IdleDecision.Active.class);
    assertThat(policy.decide(ready, waiting, at(30))).isInstanceOf(IdleDecision.Idle.class);
  }

  @Test
  void anAccessMovesEveryBoundary() {
    Session touched = ready.touched(at(59));

    assertThat(policy.decide(touched, WorkloadActivity.quiet(), at(60)))
        .isEqualTo(
            new IdleDecision.Active(
                at(59).plus(Duration.ofMinutes(10)), at(59).plus(Duration.ofMinutes(60))));
  }

  @Test
  void theIdlePolicyDoesNotApplyToASessionThatIsNotReady() {
    Session requested = TestSessions.requested(T0);

    assertThat(policy.decide(requested, WorkloadActivity.quiet(), at(600)))
        .isInstanceOf(IdleDecision.NotApplicable.class);
  }

  @Test
  void aSnapshotTheAgentRefusedIsNotAskedForAgainUntilTheNextAccess() {
    Session refused =
        ready
            .withIntent(
                dev.berth.core.session.DesiredState.SUSPENDED, at(60), "idle-policy", "idle")
            .withIntent(
                dev.berth.core.session.DesiredState.RUNNING,
                at(61),
                dev.berth.core.lifecycle.Reconciler.ACTOR,
                "snapshot refused: too many files");

    assertThat(policy.decide(refused, WorkloadActivity.quiet(), at(600)))
        .isInstanceOf(IdleDecision.NotApplicable.class);
    Session accessed = refused.touched(at(62));
    assertThat(
            policy.decide(accessed, WorkloadActivity.quiet(), at(62).plus(Duration.ofMinutes(60))))
        .isInstanceOf(IdleDecision.Suspend.class);
  }

  private static Instant at(long minutes) {
    return T0.plus(Duration.ofMinutes(minutes));
  }
}
