package dev.berth.server;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.lifecycle.Failpoints;
import dev.berth.core.lifecycle.Reconciler;
import dev.berth.core.lifecycle.SessionIntents;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.Admission;
import dev.berth.core.tenant.TenantDirectory;
import dev.berth.server.api.OpenApiSpec;
import dev.berth.server.api.PublicApi;
import dev.berth.server.api.RecoveryRoutes;
import dev.berth.server.auth.AdminToken;
import dev.berth.server.auth.Authenticator;
import dev.berth.server.auth.TenantTokens;
import dev.berth.server.health.BuildVersion;
import dev.berth.server.health.Readiness;
import dev.berth.server.reconcile.ReconcileLoop;
import dev.berth.server.runtime.AgentWireDataPlane;
import dev.berth.server.runtime.StoreEpochStamp;
import dev.berth.server.session.IdleReaper;
import dev.berth.server.session.InstallationRecovery;
import dev.berth.server.session.ReplicaDuty;
import dev.berth.server.session.SessionSignals;
import dev.berth.server.session.UseCases;
import dev.berth.server.telemetry.CallTimers;
import dev.berth.server.telemetry.MeteredArchiveStore;
import dev.berth.server.telemetry.Telemetry;
import dev.berth.store.ControlPlaneStore;
import io.javalin.Javalin;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The Berth control plane: the public API on one port, the reconciler behind it, the local runtime
 * under it. Construct it with a {@link ServerConfig}, call {@link #start()}, and {@link #close()}
 * it when done. One server per data directory (an exclusive lock on {@code server.lock}); that is
 * what lets a restarted server take its sessions' leases back at once, under the same holder name.
 * The data directory and everything the server keeps in it are private to the server's user; a
 * start on a directory that is not is refused (see {@link DataDirectory}).
 */
public final class BerthServer implements AutoCloseable {

  /**
   * The read timeout: how long the server waits for the next bytes of a request (a body trickled
   * slower is cut and answered {@code 408 REQUEST_TIMEOUT}), and how long an idle connection stays
   * open. docs/security.md, "Attack sweeps".
   */
  public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);

  private enum State {
    NEW,
    STARTED,
    CLOSED
  }

  private final ServerConfig config;

  /** The idle scan: one replica at a time does it for every session of the store. */
  static final String IDLE_SCAN_DUTY = "idle-scan";

  private final List<AutoCloseable> resources = new ArrayList<>();
  private State state = State.NEW;
  private final Clock clock;
  private final Failpoints failpoints;
  private final Duration readTimeout;
  private Javalin app;
  private IdleReaper idleReaper;
  private ReconcileLoop loop;
  private String adminToken;
  private SessionPlacement placement;
  private boolean tokenMintedHere;

  public BerthServer(ServerConfig config) {
    this(config, Clock.systemUTC(), ProcessFailpoints.from(config.failpoints()));
  }

  /**
   * A server whose control plane keeps time by {@code clock} (the idle policy, leases, operation
   * deadlines): tests move it to reach the idle policy's boundaries without waiting for them; and
   * whose lifecycle steps reach {@code failpoints} (tests hold a step there).
   */
  // app, idleReaper, loop, adminToken and placement are set by start() and read only while the
  // state is STARTED, which start() sets once they all are: NullAway cannot follow that state.
  @SuppressWarnings("NullAway.Init")
  public BerthServer(ServerConfig config, Clock clock, Failpoints failpoints) {
    this(config, clock, failpoints, IDLE_TIMEOUT);
  }

  /**
   * A server that waits {@code readTimeout} instead of {@link #IDLE_TIMEOUT} for a request's next
   * bytes (the attack sweeps cut a trickled body in seconds, not half a minute).
   */
  @SuppressWarnings("NullAway.Init")
  public BerthServer(
      ServerConfig config, Clock clock, Failpoints failpoints, Duration readTimeout) {
    this.config = Objects.requireNonNull(config, "config must not be null");
    this.clock = Objects.requireNonNull(clock, "clock must not be null");
    this.failpoints = Objects.requireNonNull(failpoints, "failpoints must not be null");
    this.readTimeout = Objects.requireNonNull(readTimeout, "readTimeout must not be null");
    if (readTimeout.isNegative() || readTimeout.isZero()) {
      throw new IllegalArgumentException("readTimeout must be positive, was " + readTimeout);
    }
  }

  /**
   * Opens the store, starts the reconciler, binds the configured address and starts serving.
   *
   * @return this server
   * @throws IllegalStateException if the server was already started or closed, or another server
   *     runs on the data directory
   * @throws dev.berth.protocol.files.NotPrivateException if the data directory, or a token or
   *     database file in it, is owned by another user or open to group or others
   */
  public synchronized BerthServer start() {
    if (state != State.NEW) {
      throw new IllegalStateException("server cannot be started: it is " + state);
    }
    ServerHttp.requireFreeAddress(config);
    try {
      startComponents();
    } catch (RuntimeException e) {
      closeResources();
      state = State.CLOSED;
      // A start that failed leaves nothing behind: an admin token minted by it was never printed,
      // and the next start would otherwise keep it without saying so.
      if (tokenMintedHere) {
        try {
          java.nio.file.Files.deleteIfExists(config.dataDir().resolve(AdminToken.FILE_NAME));
        } catch (IOException ignored) {
          // the start's own failure is the news
        }
      }
      throw e;
    }
    state = State.STARTED;
    return this;
  }

  /**
   * The parts of the control plane, in the order they start: each uses parts started before it, and
   * puts what it must close in {@link #resources}, which close front to back (most parts go to the
   * front, so that a part closes before those it uses).
   */
  private void startComponents() {
    takeDataDirectory();
    Telemetry telemetry = new Telemetry();
    resources.add(telemetry);
    CallTimers calls = new CallTimers(telemetry);
    ServerBackends backends = openBackends(calls);
    adminToken = AdminToken.loadOrCreate(config.dataDir(), config.adminToken());
    ServerApprovals approvals = openApprovals(backends, telemetry);
    StoreEpochStamp epoch = new StoreEpochStamp();
    placement = openPlacement(backends, calls, approvals, epoch);
    ArchiveStore archives = openArchives(telemetry);
    SessionLifecycle lifecycle =
        SessionLifecycle.wire(
            config.lifecycle(),
            backends,
            placement,
            archives,
            calls,
            telemetry,
            clock,
            failpoints,
            epoch,
            resources);
    SessionMeters.register(telemetry, backends.store());
    loop = reconcileLoop(lifecycle.reconciler(), backends.store(), lifecycle.signals());
    InstallationRecovery recovery =
        ServerRecovery.wire(backends, placement, lifecycle, archives, epoch, telemetry, clock);
    // Before anything commands a runtime or admits a session: the store may be older than them.
    recovery.start();
    loop.onRecoveryNeeded(id -> ServerRecovery.runtimeAhead(recovery, id));
    Admission admission = new Admission(backends.directory(), backends.admissionLock());
    SessionIntents intents =
        new SessionIntents(backends.store(), clock, lifecycle.settings(), approvals::leaving);
    UseCases sessions = useCases(backends.store(), intents, lifecycle, admission, approvals);
    idleReaper = idleReaper(backends.store(), intents, lifecycle.dataPlane(), sessions, telemetry);
    startAccessFlusher(sessions);
    PublicApi api =
        publicApi(backends, sessions, admission, archives, telemetry)
            .withRecovery(new RecoveryRoutes(recovery, loop::resync, admission));
    app = ServerHttp.start(config, api, readTimeout);
    resources.add(0, app::stop);
    approvals.bound(ServerHttp.loopbackBase(config, app.port()));
    loop.start();
    resources.add(0, ServerRecovery.schedule(recovery, backends));
    startIdleScan(backends);
    ControlLeases.start(
        config.lifecycle().controlLease(), backends, lifecycle.dataPlane(), loop, clock, resources);
  }

  /** The data directory, private and locked to this server, and whether a token is minted. */
  private void takeDataDirectory() {
    DataDirectory.prepare(config.dataDir());
    resources.add(DataDirectoryLock.take(config.dataDir()));
    // Under the lock: no other server of this directory can mint it meanwhile.
    tokenMintedHere =
        config.adminToken().isEmpty()
            && !java.nio.file.Files.exists(config.dataDir().resolve(AdminToken.FILE_NAME));
  }

  /** The store opens first, so its schema migrations have run before anything is served. */
  private ServerBackends openBackends(CallTimers calls) {
    ServerBackends backends = ServerBackends.open(config, clock, calls.store());
    // Closed before the data-directory lock is released (resources close front to back).
    resources.add(0, backends.connection());
    resources.add(0, backends.store());
    resources.add(0, backends.runtimeClaim());
    return backends;
  }

  private ServerApprovals openApprovals(ServerBackends backends, Telemetry telemetry) {
    ServerApprovals opened = ServerApprovals.forServer(config, backends, clock, telemetry);
    resources.add(0, opened);
    return opened;
  }

  private SessionPlacement openPlacement(
      ServerBackends backends, CallTimers calls, ServerApprovals approvals, StoreEpochStamp epoch) {
    SessionPlacement opened =
        SessionPlacement.open(
            config,
            backends.installation(),
            backends.store(),
            backends.directory(),
            () ->
                AgentCatalog.load(
                        config.agents().clis(), config.agents().providersFile(), System.getenv())
                    .withMarketplace(
                        config
                            .agents()
                            .pluginsDir()
                            .map(PluginMarketplace::load)
                            .orElse(PluginMarketplace.none())),
            approvals::launch,
            approvals::podGate,
            calls.agent(),
            epoch);
    opened.closeable().ifPresent(c -> resources.add(0, c));
    return opened;
  }

  private ArchiveStore openArchives(Telemetry telemetry) {
    ArchiveStore opened = ServerBackends.openArchives(config, clock, failpoints);
    if (opened instanceof AutoCloseable closeable) {
      resources.add(0, closeable);
    }
    return new MeteredArchiveStore(opened, telemetry);
  }

  private ReconcileLoop reconcileLoop(
      Reconciler reconciler, SessionStore store, SessionSignals signals) {
    ReconcileLoop created =
        new ReconcileLoop(
            reconciler, store, ReconcileLoop.Settings.defaults(), signals::changed, clock);
    resources.add(0, created);
    return created;
  }

  private UseCases useCases(
      SessionStore store,
      SessionIntents intents,
      SessionLifecycle lifecycle,
      Admission admission,
      ServerApprovals approvals) {
    return UseCases.wire(
        new UseCases.Ports(
            store,
            intents,
            loop,
            lifecycle.signals(),
            admission,
            lifecycle.dataPlane(),
            lifecycle.restores(),
            clock),
        dev.berth.core.access.AccessSettings.defaults()
            .withIdle(config.lifecycle().idle())
            .withSuspendEnabled(config.lifecycle().suspendEnabled()),
        new SecureRandom(),
        placement.requireIsolation(),
        placement.agents(),
        approvals.useCases());
  }

  private IdleReaper idleReaper(
      SessionStore store,
      SessionIntents intents,
      AgentWireDataPlane dataPlane,
      UseCases sessions,
      Telemetry telemetry) {
    IdleReaper reaper =
        new IdleReaper(
            store,
            intents,
            loop,
            new dev.berth.core.idle.WorkloadProbe(
                dataPlane, sessions.approvals().read()::pendingUntil),
            sessions.idlePolicy(),
            sessions.accesses(),
            clock,
            telemetry.counter(
                "berth.idle.decisions",
                "The idle policy's decisions, one per ready session per scan"));
    resources.add(0, reaper);
    return reaper;
  }

  private void startAccessFlusher(UseCases sessions) {
    dev.berth.server.session.AccessFlusher flusher =
        new dev.berth.server.session.AccessFlusher(sessions.accesses(), clock);
    flusher.start();
    // Closed after the API, which is added later (resources close front to back): the accesses
    // of the last requests are written before the store closes.
    resources.add(0, flusher);
  }

  private PublicApi publicApi(
      ServerBackends backends,
      UseCases sessions,
      Admission admission,
      ArchiveStore archives,
      Telemetry telemetry) {
    ControlPlaneStore store = backends.store();
    TenantDirectory directory = backends.directory();
    dev.berth.core.runtime.Runtime runtime = placement.runtime();
    return new PublicApi(
        sessions,
        new Authenticator(
            adminToken, directory, ServiceAccountTokens.open(config.backends(), clock, resources)),
        new TenantTokens(directory, clock, new SecureRandom()),
        directory,
        admission,
        store,
        new Readiness(
            List.of(
                new Readiness.Check("store", store::checkReachable),
                new Readiness.Check("schema", store::checkMigrated),
                new Readiness.Check("runtime", runtime::checkReachable),
                new Readiness.Check("archive", archives::checkWritable))),
        BuildVersion.of(config.backends().store().kind(), runtime.kind()),
        new PublicApi.Metrics(telemetry, config.observability().metricsWithoutToken()));
  }

  private void startIdleScan(ServerBackends backends) {
    ServerConfig.Lifecycle lifecycle = config.lifecycle();
    if (lifecycle.suspendEnabled()) {
      idleReaper.start(
          lifecycle.idleScan(),
          new ReplicaDuty(
              backends.duties(), IDLE_SCAN_DUTY, backends.holder(), lifecycle.idleScan()));
    }
  }

  /**
   * Looks at every session now, as the periodic resync does: the live ones, and the deleted ones
   * whose recovery window ended (tests move the clock, then call this instead of waiting).
   */
  public synchronized void resync() {
    if (state != State.STARTED) {
      throw new IllegalStateException("server cannot resync: it is " + state);
    }
    loop.resync();
  }

  /**
   * Runs one pass of the idle policy now, as the periodic scan does (tests move the clock, then
   * call this instead of waiting for the next scan).
   *
   * @return the sessions asked to suspend
   */
  public synchronized java.util.List<dev.berth.core.session.SessionId> scanIdle() {
    if (state != State.STARTED) {
      throw new IllegalStateException("server cannot scan: it is " + state);
    }
    return idleReaper.scan();
  }

  /**
   * The port the server is bound to; when the configured port is 0 this is the port the system
   * picked.
   *
   * @throws IllegalStateException if the server is not running
   */
  public synchronized int port() {
    if (state != State.STARTED) {
      throw new IllegalStateException("server has no port: it is " + state);
    }
    return app.port();
  }

  /**
   * Every route this server answers (HTTP methods and WebSocket upgrades as GET), with Javalin's
   * path templates; the OpenAPI test compares them with the published spec.
   */
  public synchronized Set<OpenApiSpec.Route> routes() {
    if (state != State.STARTED) {
      throw new IllegalStateException("server has no routes: it is " + state);
    }
    return ServerHttp.routes(app);
  }

  /** What the node can enforce, as the table printed at start (it starts the node if none runs). */
  public synchronized List<String> isolationTable() {
    if (state != State.STARTED) {
      throw new IllegalStateException("server has no node: it is " + state);
    }
    return placement.isolationTable().get();
  }

  /** The admin token in force (from the environment, or the data directory's). */
  public synchronized String adminToken() {
    if (state != State.STARTED) {
      throw new IllegalStateException("server has no token: it is " + state);
    }
    return adminToken;
  }

  /** The configuration this server was created with. */
  public ServerConfig config() {
    return config;
  }

  /**
   * Stops the server. The local node and its sessions keep running: they outlive the control plane
   * by design. Calling it again, or before {@link #start()}, does nothing.
   */
  @Override
  public synchronized void close() {
    if (state == State.STARTED) {
      closeResources();
    }
    state = State.CLOSED;
  }

  private void closeResources() {
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (Exception e) {
        // keep closing the others
      }
    }
    resources.clear();
  }
}
