package dev.berth.server.session;

import dev.berth.core.access.AccessLog;
import dev.berth.core.access.AccessSettings;
import dev.berth.core.access.CreateSession;
import dev.berth.core.access.DeleteSession;
import dev.berth.core.access.ExplainIdle;
import dev.berth.core.access.KeepSessionAlive;
import dev.berth.core.access.ListSessions;
import dev.berth.core.access.MakeActive;
import dev.berth.core.access.RecoverSession;
import dev.berth.core.access.SessionData;
import dev.berth.core.access.SessionLookup;
import dev.berth.core.access.SessionWatch;
import dev.berth.core.access.SnapshotSession;
import dev.berth.core.access.WorkloadCatalog;
import dev.berth.core.agent.DataPlane;
import dev.berth.core.archive.RestoreProgress;
import dev.berth.core.idle.IdlePolicy;
import dev.berth.core.idle.WorkloadProbe;
import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.core.lifecycle.SessionIntents;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.Admission;
import java.time.Clock;
import java.util.random.RandomGenerator;

/**
 * The core's use cases over sessions as the public API calls them, wired once over the same ports
 * (the composition root builds this; the routes only call it). The data plane is among them because
 * passive routes (stream, status, executions) call it directly once {@link SessionData} named the
 * runtime.
 */
public record UseCases(
    AccessLog accesses,
    SessionLookup lookup,
    CreateSession create,
    DeleteSession delete,
    ListSessions list,
    MakeActive activation,
    SessionData data,
    SnapshotSession snapshot,
    RecoverSession recover,
    KeepSessionAlive keepAlive,
    ExplainIdle idle,
    IdlePolicy idlePolicy,
    DataPlane dataPlane,
    RestoreProgress restores,
    WorkloadCatalog catalog,
    Clock clock,
    AccessSettings settings,
    ApprovalUseCases approvals) {

  /** The ports the use cases run over. */
  public record Ports(
      SessionStore store,
      SessionIntents intents,
      ReconcileQueue queue,
      SessionWatch watch,
      Admission admission,
      DataPlane dataPlane,
      RestoreProgress restores,
      Clock clock) {}

  /**
   * @param newSessionRequirement refuses a new session the installation cannot host as it must
   */
  public static UseCases wire(
      Ports ports,
      AccessSettings settings,
      RandomGenerator random,
      Runnable newSessionRequirement,
      WorkloadCatalog catalog,
      ApprovalUseCases approvals) {
    SessionStore store = ports.store();
    Clock clock = ports.clock();
    IdlePolicy idlePolicy = new IdlePolicy(settings.idle());
    AccessLog accesses = new AccessLog(store, AccessLog.intervalFor(settings.idleAfter()));
    MakeActive activation =
        new MakeActive(
            store,
            accesses,
            ports.intents(),
            ports.queue(),
            ports.watch(),
            ports.admission(),
            clock,
            settings);
    return new UseCases(
        accesses,
        new SessionLookup(store, clock, java.util.Optional.of(accesses)),
        new CreateSession(
            store,
            ports.intents(),
            ports.queue(),
            ports.watch(),
            ports.admission(),
            clock,
            settings,
            random,
            newSessionRequirement,
            catalog),
        new DeleteSession(store, ports.intents(), ports.queue(), ports.watch(), clock, settings),
        new ListSessions(store, ports.admission(), clock, settings.idleAfter()),
        activation,
        new SessionData(store, accesses, activation, ports.dataPlane(), ports.queue(), clock),
        new SnapshotSession(store, ports.intents(), ports.queue(), ports.watch(), clock, settings),
        new RecoverSession(store, ports.admission(), clock),
        new KeepSessionAlive(store, clock, idlePolicy.settings().maxKeepAlive()),
        new ExplainIdle(
            store,
            idlePolicy,
            new WorkloadProbe(ports.dataPlane(), approvals.read()::pendingUntil),
            clock,
            settings.suspendEnabled()),
        idlePolicy,
        ports.dataPlane(),
        ports.restores(),
        catalog,
        clock,
        settings,
        approvals);
  }
}
