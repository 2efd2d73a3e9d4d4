package dev.berth.core.access;

import dev.berth.core.idle.IdlePolicy;
import dev.berth.core.idle.WorkloadProbe;
import dev.berth.core.lifecycle.LifecycleSettings;
import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.core.lifecycle.Reconciler;
import dev.berth.core.lifecycle.RecoveryMode;
import dev.berth.core.lifecycle.SessionIntents;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.Admission;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.testing.InMemorySessionStore;
import dev.berth.core.testing.InMemoryTenantDirectory;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.SimulatedCloud;
import dev.berth.core.testing.SimulatedDataPlane;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The use cases over the real intents, reconciler and admission, the in-memory store and the
 * simulated data plane. A request's wait runs the reconciler in the test's own thread, pass after
 * pass, until the awaited state holds — unless {@link #stall} says the reconciler is busy
 * elsewhere, so that waits run out as they do when a control plane falls behind.
 */
final class AccessFixture {

  static final TenantId ACME = new TenantId("acme");
  static final Scope AS_ACME = Scope.of(ACME);

  final MutableClock clock = MutableClock.at("2026-12-01T10:00:00Z");
  final InMemorySessionStore store = new InMemorySessionStore(clock);
  final SimulatedCloud cloud = new SimulatedCloud(clock);
  final SimulatedDataPlane data = new SimulatedDataPlane(cloud, clock);
  final InMemoryTenantDirectory directory = new InMemoryTenantDirectory();
  final Admission admission = new Admission(directory);
  final LifecycleSettings lifecycle = LifecycleSettings.defaults("cp-1", "install-1");
  final SessionIntents intents = new SessionIntents(store, clock, lifecycle);
  final Reconciler reconciler =
      new Reconciler(store, cloud, data, cloud, clock, lifecycle, new RecoveryMode(), name -> {});
  final List<SessionId> enqueued = new ArrayList<>();
  final ReconcileQueue queue = enqueued::add;
  AccessSettings settings = AccessSettings.defaults();
  boolean stall;

  /** Called between the reconciler's passes while a request waits; tests interleave there. */
  Runnable betweenPasses = () -> {};

  final SessionWatch watch =
      (id, until, timeout) -> {
        for (int pass = 0; pass < 20; pass++) {
          Optional<Session> now = store.get(id);
          if (now.isEmpty() || until.test(now.get())) {
            return now;
          }
          if (stall) {
            return Optional.empty();
          }
          betweenPasses.run();
          reconciler.reconcile(id);
        }
        return Optional.empty();
      };

  AccessFixture() {
    directory.upsertTenant(new Tenant(ACME, Set.of(WorkloadType.SHELL), 5, clock.instant()));
  }

  /** Writes every access through, unless a test batches them. */
  AccessLog accesses = AccessLog.writeThrough(store);

  MakeActive makeActive() {
    return new MakeActive(store, accesses, intents, queue, watch, admission, clock, settings);
  }

  SessionData sessionData() {
    return new SessionData(store, accesses, makeActive(), data, queue, clock);
  }

  CreateSession createSession(Runnable requirement) {
    return createSession(requirement, WorkloadCatalog.shellsOnly());
  }

  CreateSession createSession(Runnable requirement, WorkloadCatalog catalog) {
    return new CreateSession(
        store,
        intents,
        queue,
        watch,
        admission,
        clock,
        settings,
        RandomGenerator.of("L64X128MixRandom"),
        requirement,
        catalog);
  }

  SnapshotSession snapshotSession() {
    return new SnapshotSession(store, intents, queue, watch, clock, settings);
  }

  DeleteSession deleteSession() {
    return new DeleteSession(store, intents, queue, watch, clock, settings);
  }

  RecoverSession recoverSession() {
    return new RecoverSession(store, admission, clock);
  }

  ExplainIdle explainIdle() {
    return new ExplainIdle(
        store, new IdlePolicy(settings.idle()), new WorkloadProbe(data), clock, true);
  }

  Session get(SessionId id) {
    return store.get(id).orElseThrow();
  }

  /** A running session of acme, created and reconciled to READY. */
  Session ready() {
    return createSession(() -> {})
        .create(
            AS_ACME,
            new CreateSession.Request(
                "work",
                Optional.empty(),
                Optional.empty(),
                List.of(),
                Optional.empty(),
                "tester",
                true))
        .session();
  }

  /** A session suspended to a snapshot. */
  Session snapshot() {
    Session s = ready();
    return snapshotSession().snapshot(AS_ACME, s.id(), OptionalLong.empty(), "tester");
  }

  /** The idle policy asks {@code id} to suspend, as the reaper does; nothing is reconciled yet. */
  void idlePolicyAsksToSuspend(SessionId id) {
    intents.request(
        id, DesiredState.SUSPENDED, OptionalLong.empty(), IdlePolicy.ACTOR, "idle for a while");
  }

  /** Moves past the idle threshold: a session not accessed since reads idle. */
  void passIdleThreshold() {
    clock.advance(settings.idleAfter().plusSeconds(1));
  }
}
