package dev.berth.server;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.lifecycle.StoreRecovery;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.StoreEpochs;
import dev.berth.server.runtime.StoreEpochStamp;
import dev.berth.server.runtime.local.LocalRuntime;
import dev.berth.server.session.HighWaterMark;
import dev.berth.server.session.InstallationRecovery;
import dev.berth.server.session.ReplicaDuty;
import dev.berth.server.store.sql.SqlSessionStore;
import dev.berth.server.store.sql.SqlStoreEpochs;
import dev.berth.server.telemetry.Telemetry;
import dev.berth.store.ControlPlaneStore;
import io.micrometer.core.instrument.Gauge;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires {@link InstallationRecovery} as {@link BerthServer} runs it: the marks of the runtime (the
 * node's, or each pod agent's) and of the archive store, the store recovery over the lifecycle's
 * data plane, the periodic turn under the {@value InstallationRecovery#DUTY} duty, and the gauge
 * {@code berth_recovery_mode}.
 */
final class ServerRecovery {

  private static final Logger LOG = LoggerFactory.getLogger(ServerRecovery.class);

  private ServerRecovery() {}

  static InstallationRecovery wire(
      ServerBackends backends,
      SessionPlacement placement,
      SessionLifecycle lifecycle,
      ArchiveStore archives,
      StoreEpochStamp epoch,
      Telemetry telemetry,
      Clock clock) {
    InstallationRecovery recovery =
        new InstallationRecovery(
            new InstallationRecovery.Ports(
                epochs(backends.store()),
                backends.store(),
                placement.runtime(),
                archives,
                epoch::advanceTo,
                lifecycle.recovery(),
                () ->
                    new StoreRecovery(
                            backends.store(),
                            placement.runtime(),
                            lifecycle.dataPlane(),
                            clock,
                            lifecycle.settings(),
                            lifecycle.recovery())
                        .run(),
                sources(backends, placement, lifecycle, archives),
                backends.installation(),
                backends.holder(),
                clock));
    Gauge.builder("berth.recovery.mode", lifecycle.recovery(), m -> m.active() ? 1 : 0)
        .description(
            "1 while the control plane is in recovery mode (its store older than what the runtimes"
                + " or archives saw): admission closed, nothing deleted or released")
        .register(telemetry.registry());
    return recovery;
  }

  /** Starts the periodic turn; the handle goes to the server's resources. */
  static AutoCloseable schedule(InstallationRecovery recovery, ServerBackends backends) {
    return recovery.schedule(
        InstallationRecovery.DEFAULT_INTERVAL,
        new ReplicaDuty(
            backends.duties(),
            InstallationRecovery.DUTY,
            backends.holder(),
            InstallationRecovery.DEFAULT_INTERVAL));
  }

  /** The epoch of the store the server runs on: the SQL table, or the ConfigMap store's own. */
  private static StoreEpochs epochs(ControlPlaneStore store) {
    return switch (store) {
      case SqlSessionStore sql -> SqlStoreEpochs.sharing(sql);
      case StoreEpochs kept -> kept;
      default ->
          throw new IllegalStateException(
              store.describe() + " keeps no store epoch; this build cannot run on it");
    };
  }

  private static List<HighWaterMark.Source> sources(
      ServerBackends backends,
      SessionPlacement placement,
      SessionLifecycle lifecycle,
      ArchiveStore archives) {
    List<HighWaterMark.Source> sources = new ArrayList<>();
    if (placement.runtime() instanceof LocalRuntime node) {
      sources.add(new HighWaterMark.Source("node", node::storeEpochSeen));
    } else {
      sources.add(new HighWaterMark.Source("pods", () -> podsHighest(backends, lifecycle)));
    }
    sources.add(new HighWaterMark.Source("archives", archives::storeEpochSeen));
    return sources;
  }

  /** The highest mark of the pod agents of the sessions the store knows a runtime of. */
  private static long podsHighest(ServerBackends backends, SessionLifecycle lifecycle) {
    long[] highest = {0};
    backends
        .store()
        .forEach(
            SessionQuery.all(200),
            s ->
                s.runtime()
                    .ifPresent(
                        ref -> {
                          try {
                            highest[0] =
                                Math.max(highest[0], lifecycle.dataPlane().storeEpochSeen(ref));
                          } catch (RuntimeException e) {
                            LOG.debug("no store epoch from {}: {}", ref.name(), e.toString());
                          }
                        }));
    return highest[0];
  }

  /** What the reconcile loop calls when a pass answers RECOVERY_NEEDED. */
  static void runtimeAhead(InstallationRecovery recovery, SessionId session) {
    try {
      recovery.runtimeAhead(session);
    } catch (RuntimeException e) {
      LOG.error("could not enter recovery mode for session {}", session.value(), e);
    }
  }
}
