package dev.berth.server;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.RestoreProgress;
import dev.berth.core.lifecycle.Failpoints;
import dev.berth.core.lifecycle.LifecycleSettings;
import dev.berth.core.lifecycle.Reconciler;
import dev.berth.core.lifecycle.RecoveryMode;
import dev.berth.core.store.SessionStore;
import dev.berth.server.reconcile.LeaseRenewer;
import dev.berth.server.runtime.AgentWireDataPlane;
import dev.berth.server.runtime.StoreEpochStamp;
import dev.berth.server.session.SessionSignals;
import dev.berth.server.telemetry.CallTimers;
import dev.berth.server.telemetry.OperationLog;
import dev.berth.server.telemetry.Telemetry;
import java.time.Clock;
import java.util.List;

/**
 * What the reconciler and the use cases share of the sessions' lifecycle, as {@link BerthServer}
 * wires it: the settings, the restores in progress, the data plane and the reconciler over the
 * placement's runtime, and the signals that wake the reconcile loop.
 */
record SessionLifecycle(
    LifecycleSettings settings,
    RestoreProgress restores,
    AgentWireDataPlane dataPlane,
    Reconciler reconciler,
    SessionSignals signals,
    RecoveryMode recovery) {

  /**
   * The lifecycle over {@code placement}'s runtime and endpoints; its lease renewer is added to the
   * front of {@code resources}, to be closed with the server before what it uses.
   */
  static SessionLifecycle wire(
      ServerConfig.Lifecycle config,
      ServerBackends backends,
      SessionPlacement placement,
      ArchiveStore archives,
      CallTimers calls,
      Telemetry telemetry,
      Clock clock,
      Failpoints failpoints,
      StoreEpochStamp epoch,
      List<AutoCloseable> resources) {
    SessionStore store = backends.store();
    LifecycleSettings settings =
        LifecycleSettings.defaults(backends.holder(), backends.installation())
            .withRecoveryWindow(config.recoveryWindow())
            .withOperationTimeout(config.operationTimeout());
    RestoreProgress restores = new RestoreProgress(clock);
    AgentWireDataPlane dataPlane =
        new AgentWireDataPlane(placement.endpoints(), archives, restores, calls.agent(), epoch);
    // Passes may wait minutes (a prompt drain, an archive upload): their leases are renewed, or
    // another replica sharing the store would take the session over mid-operation.
    LeaseRenewer renewer = new LeaseRenewer(store.leases());
    resources.add(0, renewer);
    RecoveryMode recovery = new RecoveryMode();
    Reconciler reconciler =
        new Reconciler(
            store,
            placement.runtime(),
            dataPlane,
            archives,
            clock,
            settings,
            recovery,
            failpoints,
            renewer,
            new OperationLog(telemetry));
    return new SessionLifecycle(
        settings, restores, dataPlane, reconciler, new SessionSignals(store), recovery);
  }
}
