package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.Session;
import dev.berth.core.testing.SimulatedCrash;
import org.junit.jupiter.api.Test;

/** An access that asks for RUNNING while a suspend is in flight gets a running session back. */
class AccessDuringSuspendTest {

  private final LifecycleFixture f = new LifecycleFixture();

  @Test
  void anAccessAfterTheArchiveWasCommittedFinishesTheSuspendAndRestoresFromThatArchive() {
    Session s = f.ready();
    RuntimeRef first = s.runtime().orElseThrow();
    f.crashAt("suspend.remove-runtime");
    f.request(s.id(), DesiredState.SUSPENDED);
    assertThatThrownBy(() -> f.reconcile(s.id())).isInstanceOf(SimulatedCrash.class);
    Session committed = f.get(s.id());
    assertThat(committed.phase()).isEqualTo(Phase.SUSPENDING);
    long generation = committed.archive().orElseThrow().generation();
    f.cloud.vanish(first.name()); // the removal had gone through when the pass died

    f.restartControlPlane("after-crash");
    Session running = f.requestAndReconcile(s.id(), DesiredState.RUNNING, p -> p == Phase.READY);

    assertThat(running.archive().orElseThrow().generation()).isEqualTo(generation);
    assertThat(running.runtime().orElseThrow().incarnation()).isEqualTo(first.incarnation() + 1);
    assertThat(f.cloud.live(s.id())).extracting(RuntimeRef::name).hasSize(1);
  }

  @Test
  void anAccessBeforeTheArchiveWasCommittedAbortsTheSuspendAndKeepsTheRuntime() {
    Session s = f.ready();
    RuntimeRef first = s.runtime().orElseThrow();
    f.crashAt("suspend.prepare");
    f.request(s.id(), DesiredState.SUSPENDED);
    assertThatThrownBy(() -> f.reconcile(s.id())).isInstanceOf(SimulatedCrash.class);

    f.restartControlPlane("after-crash");
    Session running = f.requestAndReconcile(s.id(), DesiredState.RUNNING, p -> p == Phase.READY);

    assertThat(running.runtime().orElseThrow().name()).isEqualTo(first.name());
    assertThat(f.cloud.live(s.id())).extracting(RuntimeRef::name).containsExactly(first.name());
  }
}
