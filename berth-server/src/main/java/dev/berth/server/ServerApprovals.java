package dev.berth.server;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.approval.ApprovalRelay;
import dev.berth.core.approval.Approvals;
import dev.berth.core.approval.GatewayKeys;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import dev.berth.server.gateway.ExternalGateway;
import dev.berth.server.session.ApprovalUseCases;
import dev.berth.server.store.sql.SqlApprovals;
import dev.berth.server.store.sql.SqlSessionStore;
import dev.berth.server.telemetry.MeteredApprovals;
import dev.berth.server.telemetry.Telemetry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The approval gate's control-plane half, wired: the approvals in the server's store (its database,
 * or ConfigMaps beside the ConfigMap store's sessions), the use cases, the external gateway when
 * one is configured, the sweep that expires approvals nobody reads, what an agent launch carries to
 * the node, and the cancel of a leaving session's pending approvals.
 */
final class ServerApprovals implements AutoCloseable {

  /** How often overdue approvals are expired when nobody reads them. */
  static final Duration SWEEP = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(ServerApprovals.class);

  private final ApprovalSettings settings;
  private final Map<String, ApprovalPolicy> fromProvidersFile;
  private final java.util.function.Function<SessionId, ApprovalPolicy> granted;
  private final ApprovalUseCases useCases;
  private final Optional<ExternalGateway> gateway;
  private final ScheduledExecutorService sweeper;
  private volatile @Nullable URI base;

  private ServerApprovals(
      ApprovalSettings settings,
      Map<String, ApprovalPolicy> fromProvidersFile,
      java.util.function.Function<SessionId, ApprovalPolicy> granted,
      ApprovalUseCases useCases,
      Optional<ExternalGateway> gateway,
      ScheduledExecutorService sweeper) {
    this.settings = settings;
    this.fromProvidersFile = Map.copyOf(fromProvidersFile);
    this.granted = granted;
    this.useCases = useCases;
    this.gateway = gateway;
    this.sweeper = sweeper;
  }

  /**
   * The server's approvals: its settings and the providers file's policies, each session's tenant
   * grant, and the key of its runtime ({@link GatewayKeyFile} for the local runtime; the agents'
   * token key, which every replica shares, for Kubernetes).
   */
  static ServerApprovals forServer(
      ServerConfig config, ServerBackends backends, Clock clock, Telemetry telemetry) {
    byte[] key =
        switch (config.backends().runtime()) {
          case RuntimeChoice.Local l -> GatewayKeyFile.loadOrCreate(config.dataDir());
          case RuntimeChoice.Kubernetes k -> k.tokenKey();
        };
    return open(
        config.agents().approvals(),
        ApprovalSettings.fromProvidersFile(config.agents().providersFile()),
        session ->
            backends
                .store()
                .get(session)
                .flatMap(s -> backends.directory().tenant(s.tenant()))
                .map(dev.berth.core.tenant.Tenant::approval)
                .orElse(ApprovalPolicy.OFF),
        backends.approvals(),
        backends.store(),
        key,
        clock,
        telemetry);
  }

  /** As the server opens them, on the approvals of a SQL store. */
  static ServerApprovals open(
      ApprovalSettings settings,
      Map<String, ApprovalPolicy> fromProvidersFile,
      java.util.function.Function<SessionId, ApprovalPolicy> granted,
      SqlSessionStore store,
      byte[] key,
      Clock clock,
      Telemetry telemetry) {
    SqlApprovals stored = SqlApprovals.sharing(store);
    return open(
        settings,
        fromProvidersFile,
        granted,
        new ServerBackends.StoredApprovals(stored, stored::countAllPending),
        store,
        key,
        clock,
        telemetry);
  }

  static ServerApprovals open(
      ApprovalSettings settings,
      Map<String, ApprovalPolicy> fromProvidersFile,
      java.util.function.Function<SessionId, ApprovalPolicy> granted,
      ServerBackends.StoredApprovals stored,
      SessionStore store,
      byte[] key,
      Clock clock,
      Telemetry telemetry) {
    Approvals approvals = new MeteredApprovals(stored.approvals(), telemetry);
    // Counted by the store when a scrape asks, as the sessions' gauges are.
    java.util.concurrent.atomic.AtomicInteger pending =
        java.util.Objects.requireNonNull(
            telemetry
                .registry()
                .gauge("berth.approvals.pending", new java.util.concurrent.atomic.AtomicInteger()));
    telemetry.beforeScrape(() -> pending.set(stored.pending().getAsInt()));
    Optional<ExternalGateway> gateway =
        settings
            .gateway()
            .map(
                g ->
                    new ExternalGateway(
                        new ExternalGateway.Settings(
                            g.url(),
                            readKey(g),
                            g.user(),
                            Duration.ofSeconds(1),
                            Duration.ofSeconds(10)),
                        approvals,
                        store,
                        clock));
    ApprovalRelay relay = gateway.<ApprovalRelay>map(g -> g).orElse(ApprovalRelay.NONE);
    ApprovalUseCases useCases =
        ApprovalUseCases.wire(
            approvals, store, relay, clock, settings.timeout(), new GatewayKeys(key));
    ScheduledExecutorService sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "berth-approval-sweep");
              t.setDaemon(true);
              return t;
            });
    ServerApprovals opened =
        new ServerApprovals(settings, fromProvidersFile, granted, useCases, gateway, sweeper);
    // The sweep catches its own failures, so the future holds nothing to check.
    java.util.concurrent.Future<?> unused =
        sweeper.scheduleWithFixedDelay(
            opened::sweep, SWEEP.toMillis(), SWEEP.toMillis(), TimeUnit.MILLISECONDS);
    return opened;
  }

  private static String readKey(ApprovalSettings.ExternalGateway g) {
    try {
      return Files.readString(g.keyFile(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read --approval-gateway-key-file " + g.keyFile() + ": " + e.getMessage(), e);
    }
  }

  ApprovalUseCases useCases() {
    return useCases;
  }

  /** Where this server answers, once bound: the proxies' gateway is {@code <base>/gateway}. */
  void bound(URI serverBase) {
    base = serverBase;
  }

  /**
   * The intents' leaving hook: cancels the session's pending approvals before the reconciler drains
   * it. A failure is logged, not thrown: the intent is recorded, and the approvals expire.
   */
  void leaving(SessionId session, DesiredState desired) {
    String why =
        desired == DesiredState.TERMINATED
            ? "the session is being deleted"
            : "the session is suspending";
    try {
      useCases.cancel().cancelPending(session, why);
    } catch (RuntimeException e) {
      LOG.warn("cancelling the pending approvals of session {} failed", session, e);
    }
  }

  /**
   * The {@code "approval"} of an agent launch ({@code AgentLaunch.Approval} on the node): the
   * policy, the gateway the session's proxy asks, its runtime's key, the timeout. Empty when the
   * policy is off, so that a node of an earlier release, which refuses fields it does not know,
   * still provisions the sessions that are not gated.
   */
  Optional<Map<String, Object>> launch(RuntimeSpec spec) {
    return launch(spec, policyOf(spec));
  }

  /**
   * The type's policy (the flag's, else the providers file's, else the type's default), tightened
   * by the session's tenant's grant.
   */
  ApprovalPolicy policyOf(RuntimeSpec spec) {
    return settings
        .policyFor(
            spec.workload(), Optional.ofNullable(fromProvidersFile.get(spec.workload().value())))
        .atLeast(granted.apply(spec.labels().session()));
  }

  Optional<Map<String, Object>> launch(RuntimeSpec spec, ApprovalPolicy policy) {
    if (policy == ApprovalPolicy.OFF) {
      return Optional.empty();
    }
    URI server = base;
    if (server == null) {
      throw new IllegalStateException("the approval gateway has no address yet");
    }
    Map<String, Object> approval = new LinkedHashMap<>();
    approval.put("policy", policy.wireName());
    approval.put("gateway", server.toString().replaceAll("/+$", "") + "/gateway");
    approval.put("key", useCases.keys().keyFor(spec.runtime().name()));
    approval.put("timeoutSeconds", settings.timeout().toSeconds());
    return Optional.of(approval);
  }

  /**
   * The gate of a session pod's proxy sidecar: the same policy and key as a local launch's, the
   * gateway at {@code --approval-callback-url} (else this server's own address), and the port the
   * session's NetworkPolicy opens to the control plane's pods (this server's own: every replica
   * listens on the same). Empty when the policy is off.
   */
  Optional<dev.berth.kubernetes.runtime.PodAgent.Gate> podGate(RuntimeSpec spec) {
    ApprovalPolicy policy = policyOf(spec);
    if (policy == ApprovalPolicy.OFF) {
      return Optional.empty();
    }
    URI server = base;
    if (server == null) {
      throw new IllegalStateException("the approval gateway has no address yet");
    }
    URI reached = settings.podCallback().orElse(server);
    return Optional.of(
        new dev.berth.kubernetes.runtime.PodAgent.Gate(
            policy.wireName(),
            reached.toString().replaceAll("/+$", "") + "/gateway",
            useCases.keys().keyFor(spec.runtime().name()),
            settings.timeout().toSeconds(),
            server.getPort()));
  }

  private void sweep() {
    try {
      useCases.expire().sweep();
    } catch (RuntimeException e) {
      LOG.warn("the approval sweep failed; the next one retries", e);
    }
  }

  @Override
  public void close() {
    sweeper.shutdownNow();
    gateway.ifPresent(ExternalGateway::close);
  }
}
