package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Obligation;
import dev.berth.core.session.ObligationAction;
import dev.berth.core.session.ObligationState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Reservation;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import org.junit.jupiter.api.Test;

/**
 * Termination goes forward from whatever phase the intent finds a session in, and what it cannot do
 * yet (a removal the runtime does not confirm) stays an obligation until it is done.
 */
class TerminationInEveryPhaseTest {
  private final LifecycleFixture f = new LifecycleFixture();

  private Session terminate(SessionId id) {
    f.request(id, DesiredState.TERMINATED);
    assertThat(f.reconcile(id)).isEqualTo(ReconcileResult.CONVERGED);
    Session done = f.get(id);
    assertThat(done.phase()).isEqualTo(Phase.TERMINATED);
    assertThat(done.reservation()).isEqualTo(Reservation.RELEASED);
    assertThat(f.cloud.live(id)).isEmpty();
    return done;
  }

  private void assertMoved(SessionId id, Phase from) {
    assertThat(f.store.events(id, 0, 100))
        .filteredOn(e -> e.type().equals("session.phase"))
        .extracting(AuditEvent::detail)
        .contains(from + " -> " + Phase.TERMINATING);
  }

  private static Obligation removal(Session s) {
    return s.obligations().stream()
        .filter(o -> o.action() == ObligationAction.REMOVE_RUNTIME)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aSessionDeletedBeforeItWasProvisionedIsTerminatedWithoutEverGettingARuntime() {
    Session s = f.create();

    terminate(s.id());

    assertMoved(s.id(), Phase.REQUESTED);
    assertThat(f.cloud.created(s.id())).isZero();
  }

  @Test
  void aSessionDeletedWhileItsRuntimeStartsIsTerminatedAndTheRuntimeRemoved() {
    f.cloud.startInstantly(false);
    Session s = f.create();
    assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.WAITING);
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.PROVISIONING);

    terminate(s.id());

    assertMoved(s.id(), Phase.PROVISIONING);
    assertThat(f.cloud.created(s.id())).isEqualTo(1);
  }

  @Test
  void aSessionDeletedWhileItResumesIsTerminatedAndItsArchiveRetained() {
    Session s = f.ready();
    f.requestAndReconcile(s.id(), DesiredState.SUSPENDED, p -> p == Phase.SUSPENDED);
    f.cloud.startInstantly(false);
    f.request(s.id(), DesiredState.RUNNING);
    assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.WAITING);
    assertThat(f.get(s.id()).phase()).isEqualTo(Phase.RESUMING);

    Session done = terminate(s.id());

    assertMoved(s.id(), Phase.RESUMING);
    assertThat(done.openObligation(ObligationAction.RETAIN_ARCHIVE).orElseThrow().state())
        .isEqualTo(ObligationState.RETAINED);
  }

  @Test
  void aSessionDeletedMidSuspendIsTerminatedWithoutFinishingTheSuspend() {
    Session s = f.ready();
    f.crashMidSuspend(s.id());
    f.restartControlPlane("cp-2");

    Session done = terminate(s.id());

    assertMoved(s.id(), Phase.SUSPENDING);
    assertThat(done.archive()).isEmpty();
  }

  /** A READY session asked to terminate while its runtime does not confirm removals. */
  private Session terminatingWithRemovalUnconfirmed() {
    Session s = f.ready();
    f.cloud.removalStuck(true);
    f.request(s.id(), DesiredState.TERMINATED);
    assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.WAITING);
    return f.get(s.id());
  }

  @Test
  void aRemovalTheRuntimeDoesNotConfirmStaysAFailedObligationUntilItIsConfirmed() {
    Session stuck = terminatingWithRemovalUnconfirmed();

    assertThat(stuck.phase()).isEqualTo(Phase.TERMINATING);
    assertThat(removal(stuck).state()).isEqualTo(ObligationState.FAILED);
    assertThat(stuck.reservation()).isEqualTo(Reservation.UNCERTAIN);

    f.cloud.removalStuck(false);
    Session done = terminate(stuck.id());
    assertThat(removal(done).state()).isEqualTo(ObligationState.DONE);
  }

  @Test
  void aFailedRemovalThatIsThenInProgressIsOwedAgainUntilItIsConfirmed() {
    Session s = terminatingWithRemovalUnconfirmed();
    assertThat(removal(s).state()).isEqualTo(ObligationState.FAILED);

    f.cloud.removalStuck(false);
    f.cloud.removalSlow(true);
    assertThat(f.reconcile(s.id())).isEqualTo(ReconcileResult.WAITING);
    Session inProgress = f.get(s.id());
    assertThat(removal(inProgress).state()).isEqualTo(ObligationState.PENDING);
    assertThat(removal(inProgress).detail()).isEqualTo("the runtime is being removed");
    assertThat(inProgress.reservation()).isNotEqualTo(Reservation.RELEASED);

    f.cloud.removalSlow(false);
    Session done = terminate(s.id());
    assertThat(removal(done).state()).isEqualTo(ObligationState.DONE);
  }
}
