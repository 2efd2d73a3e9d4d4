package dev.berth.core.access;

import static dev.berth.core.access.AccessFixture.AS_ACME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.IntentSupersededException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.error.PreconditionFailedException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.error.WaitExpiredException;
import dev.berth.core.idle.IdlePolicy;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.TenantId;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class MakeActiveTest {

  private final AccessFixture f = new AccessFixture();

  @Test
  void anActiveSessionIsServedAsItIsAndTheAccessIsCounted() {
    Session s = f.ready();
    f.clock.advance(java.time.Duration.ofSeconds(5));

    MakeActive.Activation a = f.makeActive().activate(AS_ACME, s.id(), "read", "tester");

    assertThat(a.path()).isEqualTo("active");
    assertThat(a.wasIdle()).isFalse();
    assertThat(f.get(s.id()).activity().lastAccess()).isEqualTo(f.clock.instant());
  }

  @Test
  void anIdleSessionIsTouchedAndSaysItWasIdle() {
    Session s = f.ready();
    f.passIdleThreshold();

    MakeActive.Activation a = f.makeActive().activate(AS_ACME, s.id(), "write", "tester");

    assertThat(a.path()).isEqualTo("idle->active->write");
    assertThat(a.wasIdle()).isTrue();
    assertThat(a.session().runtime()).isEqualTo(s.runtime());
  }

  @Test
  void aSnapshotIsRestoredBeforeItIsServed() {
    Session snapshot = f.snapshot();
    assertThat(snapshot.phase()).isEqualTo(Phase.SUSPENDED);

    MakeActive.Activation a = f.makeActive().activate(AS_ACME, snapshot.id(), "read", "tester");

    assertThat(a.path()).isEqualTo("snapshot->restore->read");
    assertThat(a.session().phase()).isEqualTo(Phase.READY);
    assertThat(a.session().runtime().orElseThrow().incarnation()).isGreaterThan(1);
  }

  @Test
  void anAccessWinsOverTheIdlePolicysSuspendBeforeItsArchiveIsCommitted() {
    Session s = f.ready();
    f.idlePolicyAsksToSuspend(s.id());

    MakeActive.Activation a = f.makeActive().activate(AS_ACME, s.id(), "read", "tester");

    assertThat(a.path()).isEqualTo("idle->active->read");
    assertThat(a.session().intent().desired()).isEqualTo(DesiredState.RUNNING);
    assertThat(a.session().runtime()).isEqualTo(s.runtime()); // the suspend was aborted
  }

  @Test
  void aSnapshotSomeoneAskedForIsNotTakenBackByAnAccess() {
    Session s = f.ready();
    f.intents.request(
        s.id(), DesiredState.SUSPENDED, OptionalLong.empty(), "alice", "snapshot asked");

    MakeActive.Activation a = f.makeActive().activate(AS_ACME, s.id(), "read", "tester");

    // Served by the runtime it still has; the snapshot stays asked for.
    assertThat(a.path()).isEqualTo("active");
    assertThat(f.get(s.id()).intent().desired()).isEqualTo(DesiredState.SUSPENDED);
    assertThat(f.get(s.id()).intent().requestedBy()).isEqualTo("alice");
  }

  @Test
  void aRequestThatWaitedWhileSomeoneElseAskedForADeletionIsRefusedAsFinal() {
    Session snapshot = f.snapshot();
    f.betweenPasses =
        () ->
            f.intents.request(
                snapshot.id(), DesiredState.TERMINATED, OptionalLong.empty(), "bob", "cleanup");

    assertThatThrownBy(() -> f.makeActive().activate(AS_ACME, snapshot.id(), "read", "tester"))
        .isInstanceOfAny(TerminalIntentException.class, IntentSupersededException.class);
  }

  @Test
  void aWaitThatRunsOutSaysTheSessionKeepsConverging() {
    Session snapshot = f.snapshot();
    f.stall = true;

    assertThatThrownBy(() -> f.makeActive().activate(AS_ACME, snapshot.id(), "read", "tester"))
        .isInstanceOf(WaitExpiredException.class)
        .hasMessageContaining("keeps converging");
  }

  @Test
  void anotherTenantsSessionIsNotFound() {
    Session s = f.ready();

    assertThatThrownBy(
            () -> f.makeActive().activate(Scope.of(new TenantId("beta")), s.id(), "read", "tester"))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void switchingWithAStaleIfMatchIsRefusedWithBothVersions() {
    Session s = f.ready();
    long current = s.intent().version();

    assertThatThrownBy(
            () -> f.makeActive().switchTo(AS_ACME, s.id(), OptionalLong.of(current + 3), "tester"))
        .isInstanceOf(PreconditionFailedException.class)
        .hasMessageContaining("intent version " + (current + 3))
        .hasMessageContaining("at " + current);
  }

  @Test
  void theIdlePolicysSuspendIsRecognisedOnlyWhileItCanStillBeTakenBack() {
    Session s = f.ready();
    f.idlePolicyAsksToSuspend(s.id());
    assertThat(Settling.suspendedByIdlePolicy(f.get(s.id()))).isTrue();

    f.reconciler.reconcile(s.id());

    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.SUSPENDED);
    assertThat(f.get(s.id()).intent().requestedBy()).isEqualTo(IdlePolicy.ACTOR);
    assertThat(Settling.suspendedByIdlePolicy(f.get(s.id()))).isFalse();
  }
}
