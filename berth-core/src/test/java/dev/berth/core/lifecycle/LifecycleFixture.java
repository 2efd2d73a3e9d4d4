package dev.berth.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.testing.InMemorySessionStore;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.SimulatedCloud;
import dev.berth.core.testing.SimulatedCrash;
import dev.berth.core.testing.TestSessions;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * A control plane at domain level: the real intents, reconciler and store recovery over the
 * in-memory store and the simulated data plane (the real runtime comes with the data-plane issue).
 */
final class LifecycleFixture {
  final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
  final InMemorySessionStore store = new InMemorySessionStore(clock);
  final SimulatedCloud cloud = new SimulatedCloud(clock);
  final RecoveryMode recoveryMode = new RecoveryMode();
  LifecycleSettings settings = LifecycleSettings.defaults("cp-1", "install-1");
  final SessionIntents intents = new SessionIntents(store, clock, settings);
  Failpoints failpoints = Failpoints.NONE;

  Reconciler reconciler() {
    return new Reconciler(
        store, cloud, cloud, cloud, clock, settings, recoveryMode, name -> failpoints.reach(name));
  }

  StoreRecovery recovery() {
    return new StoreRecovery(store, cloud, cloud, clock, settings, recoveryMode);
  }

  /** Makes the next pass crash at {@code failpoint}, once. */
  void crashAt(String failpoint) {
    failpoints =
        name -> {
          if (name.equals(failpoint)) {
            failpoints = Failpoints.NONE;
            throw new SimulatedCrash(name);
          }
        };
  }

  /** A restarted control plane: a new holder that must wait for the dead one's lease. */
  void restartControlPlane(String holder) {
    clock.advance(settings.leaseTtl());
    settings = settings.withHolder(holder);
  }

  ReconcileResult reconcile(SessionId id) {
    return reconciler().reconcile(id);
  }

  Session get(SessionId id) {
    return store.get(id).orElseThrow();
  }

  Session create() {
    return intents.create(
        TestSessions.newId(), new TenantId("acme"), "work", WorkloadType.SHELL, "tester");
  }

  Session ready() {
    Session s = create();
    assertThat(reconcile(s.id())).isEqualTo(ReconcileResult.CONVERGED);
    assertThat(get(s.id()).phase()).isEqualTo(Phase.READY);
    return get(s.id());
  }

  Session request(SessionId id, DesiredState desired) {
    intents.request(id, desired, OptionalLong.empty(), "tester", "test");
    return get(id);
  }

  Session requestAndReconcile(SessionId id, DesiredState desired, Predicate<Phase> expected) {
    request(id, desired);
    assertThat(reconcile(id)).isEqualTo(ReconcileResult.CONVERGED);
    Session s = get(id);
    assertThat(expected.test(s.phase())).as("phase %s", s.phase()).isTrue();
    return s;
  }

  /**
   * Asks for a suspend of {@code id} and crashes the pass after it recorded generation G, before
   * the checkpoint: the session is left SUSPENDING, G not committed, the dead holder's lease held.
   */
  Session crashMidSuspend(SessionId id) {
    request(id, DesiredState.SUSPENDED);
    crashAt("suspend.prepare");
    assertThatThrownBy(() -> reconcile(id)).isInstanceOf(SimulatedCrash.class);
    Session s = get(id);
    assertThat(s.phase()).isEqualTo(Phase.SUSPENDING);
    return s;
  }

  /** A READY session that was suspended and resumed once, so it has a committed archive. */
  Session readyWithArchive() {
    Session s = ready();
    requestAndReconcile(s.id(), DesiredState.SUSPENDED, p -> p == Phase.SUSPENDED);
    return requestAndReconcile(s.id(), DesiredState.RUNNING, p -> p == Phase.READY);
  }
}
