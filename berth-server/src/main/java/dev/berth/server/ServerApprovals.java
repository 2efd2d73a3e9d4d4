package dev.berth.server;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.approval.ApprovalRelay;
import dev.berth.core.approval.Approvals;
import dev.berth.core.approval.GatewayKeys;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.SessionId;
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
 * The approval gate's control-plane half, wired: the approvals in the store's own database (the SQL
 * stores only; the ConfigMap store of berth-kubernetes is not a {@code --store} choice, so no
 * server runs approvals on it), the use cases, the external gateway when one is configured, the
 * sweep that expires approvals nobody reads, what an agent launch carries to the node, and the
 * cancel of a leaving session's pending approvals.
 */
final class ServerApprovals implements AutoCloseable {

  /** How often overdue approvals are expired when nobody reads them. */
  static final Duration SWEEP = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(ServerApprovals.class);

  private final ApprovalSettings settings;
  private final Map<String, ApprovalPolicy> fromProvidersFile;
  private final ApprovalUseCases useCases;
  private final Optional<ExternalGateway> gateway;
  private final ScheduledExecutorService sweeper;
  private volatile @Nullable URI base;

  private ServerApprovals(
      ApprovalSettings settings,
      Map<String, ApprovalPolicy> fromProvidersFile,
      ApprovalUseCases useCases,
      Optional<ExternalGateway> gateway,
      ScheduledExecutorService sweeper) {
    this.settings = settings;
    this.fromProvidersFile = Map.copyOf(fromProvidersFile);
    this.useCases = useCases;
    this.gateway = gateway;
    this.sweeper = sweeper;
  }

  static ServerApprovals open(
      ApprovalSettings settings,
      Map<String, ApprovalPolicy> fromProvidersFile,
      SqlSessionStore store,
      byte[] key,
      Clock clock,
      Telemetry telemetry) {
    Approvals approvals = new MeteredApprovals(SqlApprovals.sharing(store), telemetry);
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
        new ServerApprovals(settings, fromProvidersFile, useCases, gateway, sweeper);
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

  /** The type's policy: the flag's, else the providers file's, else the type's default. */
  ApprovalPolicy policyOf(RuntimeSpec spec) {
    return settings.policyFor(
        spec.workload(), Optional.ofNullable(fromProvidersFile.get(spec.workload().value())));
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
