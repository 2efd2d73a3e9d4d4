package dev.berth.server;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.DisconnectGrant;
import dev.berth.core.tenant.NetworkAccess;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.tenant.TenantDirectory;
import dev.berth.kubernetes.runtime.AgentTokens;
import dev.berth.kubernetes.runtime.KubernetesRuntime;
import dev.berth.kubernetes.runtime.KubernetesRuntimeSettings;
import dev.berth.kubernetes.runtime.NetworkPolicyTemplate;
import dev.berth.kubernetes.runtime.PodAgent;
import dev.berth.kubernetes.runtime.PodTemplate;
import dev.berth.protocol.wire.AgentEndpoints;
import dev.berth.server.runtime.AgentCallTimings;
import dev.berth.server.runtime.StoreEpochStamp;
import dev.berth.server.runtime.local.LocalNode;
import dev.berth.server.runtime.local.LocalRuntime;
import dev.berth.server.runtime.local.NodeIsolation;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the server's sessions run, opened as {@code --runtime} says: the runtime adapter, where its
 * agents answer, and what the server says of their isolation.
 *
 * @param requireIsolation refuses a new session when the runtime cannot isolate it as required
 * @param isolationTable what is enforced, as the lines printed at start
 * @param agents the agent CLIs sessions may run; none on a runtime that cannot run them yet
 * @param closeable what to close with the server
 */
record SessionPlacement(
    Runtime runtime,
    AgentEndpoints endpoints,
    Runnable requireIsolation,
    Supplier<List<String>> isolationTable,
    AgentCatalog agents,
    Optional<AutoCloseable> closeable) {

  private static final Logger LOG = LoggerFactory.getLogger(SessionPlacement.class);

  /** How long the start waits for the Kubernetes runtime's first picture of its pods. */
  private static final Duration FIRST_LIST = Duration.ofSeconds(30);

  static SessionPlacement open(
      ServerConfig config,
      String installation,
      SessionStore store,
      TenantDirectory directory,
      Supplier<AgentCatalog> agents,
      Function<RuntimeSpec, Optional<Map<String, Object>>> approvals,
      Function<RuntimeSpec, Optional<PodAgent.Gate>> podGates,
      AgentCallTimings timings,
      StoreEpochStamp epoch) {
    return switch (config.backends().runtime()) {
      case RuntimeChoice.Local l ->
          local(config, installation, store, directory, agents.get(), approvals, timings, epoch);
      case RuntimeChoice.Kubernetes k ->
          kubernetes(
              config,
              installation,
              k,
              networkAccess(store, directory),
              disconnect(config, store, directory),
              podGates);
    };
  }

  private static SessionPlacement local(
      ServerConfig config,
      String installation,
      SessionStore store,
      TenantDirectory directory,
      AgentCatalog agents,
      Function<RuntimeSpec, Optional<Map<String, Object>>> approvals,
      AgentCallTimings timings,
      StoreEpochStamp epoch) {
    LocalNode node =
        new LocalNode(
            config.dataDir().resolve(DataDirectory.NODE),
            config.nodeLaunchCommand(),
            Duration.ofSeconds(60));
    NodeIsolation isolation = new NodeIsolation(node, config.isolation().required());
    LocalRuntime runtime =
        new LocalRuntime(
            node,
            installation,
            networkAccess(store, directory),
            spec ->
                agents
                    .launch(spec.workload(), spec.model(), spec.plugins())
                    .map(agent -> gated(agent, approvals.apply(spec))),
            timings,
            disconnect(config, store, directory),
            epoch);
    return new SessionPlacement(
        runtime,
        runtime,
        isolation::requireForNewSession,
        isolation::table,
        agents,
        Optional.empty());
  }

  /** The agent's launch with its {@code "approval"}, when its tool calls are gated. */
  private static Map<String, Object> gated(
      Map<String, Object> agent, Optional<Map<String, Object>> approval) {
    if (approval.isEmpty()) {
      return agent;
    }
    Map<String, Object> launch = new java.util.LinkedHashMap<>(agent);
    launch.put("approval", approval.get());
    return launch;
  }

  /**
   * A pod per session. An agent session's pod runs the CLI of the agent image beside its credential
   * proxy sidecar, which alone is given the provider's token from the operator's Secret ({@link
   * AgentCatalog#loadForPods}): the control plane names the Secret and never holds the token. A
   * gated session's sidecar gets its approval gate ({@code podGates}): the policy, the control
   * plane's gateway as the pod reaches it, and its runtime's gateway key in the runtime's Secret.
   */
  private static SessionPlacement kubernetes(
      ServerConfig config,
      String installation,
      RuntimeChoice.Kubernetes choice,
      Function<SessionId, NetworkAccess> networkAccess,
      Function<SessionId, Optional<DisconnectGrant>> disconnect,
      Function<RuntimeSpec, Optional<PodAgent.Gate>> podGates) {
    refuseLocalOptions(config);
    if (config.agents().approvals().podCallback().isEmpty()) {
      LOG.warn(
          "--approval-callback-url is not set: the proxies of gated agent sessions are given the"
              + " address this server reaches itself at (127.0.0.1 when it listens on every"
              + " address) as their approval gateway, which a session pod may not reach, and then"
              + " their gated tool calls end \"gateway error\"; set it to the control plane's"
              + " address as pods reach it, e.g. http://berth.berth-system.svc:8080");
    }
    AgentCatalog agents =
        AgentCatalog.loadForPods(
                config.agents().clis(), config.agents().providersFile(), System.getenv())
            .withMarketplace(
                config
                    .agents()
                    .pluginsDir()
                    .map(PluginMarketplace::load)
                    .orElse(PluginMarketplace.none()));
    // A failed call is not retried by the client: the reconciler tries again on its next pass,
    // and a removal must show Unconfirmed at once, not after the client's retries with backoff.
    KubernetesClient client = KubeClients.fromEnvironment();
    String namespace =
        choice.namespace().or(() -> Optional.ofNullable(client.getNamespace())).orElse("default");
    KubernetesRuntime runtime =
        startRuntime(
            client,
            installation,
            choice,
            podTemplate(choice, namespace),
            networkAccess,
            disconnect,
            spec -> PodAgents.of(agents, spec, podGates));
    awaitFirstList(runtime, namespace);
    List<String> table = kubernetesTable(choice, namespace);
    return new SessionPlacement(
        runtime,
        runtime,
        () -> {},
        () -> table,
        agents,
        Optional.of(
            () -> {
              runtime.close();
              client.close();
            }));
  }

  /** The local node's sandbox options, which a session pod cannot honour. */
  private static void refuseLocalOptions(ServerConfig config) {
    if (!config.isolation().nodeArguments().isEmpty()) {
      throw new InvalidValueException(
          "the local node's sandbox options ("
              + String.join(" ", config.isolation().nodeArguments())
              + ") do not apply to --runtime kubernetes: a session pod's limits come from its"
              + " template and its network from its NetworkPolicy and its tenant's grant; leave"
              + " them out");
    }
  }

  private static PodTemplate podTemplate(RuntimeChoice.Kubernetes choice, String namespace) {
    return new PodTemplate(
        namespace,
        choice.image(),
        List.of("berth"),
        AGENT_PORT,
        PodTemplate.Resources.defaults(),
        choice.serviceAccount(),
        Optional.empty());
  }

  /** Starts the runtime on {@code client}, which it closes when the runtime does not start. */
  private static KubernetesRuntime startRuntime(
      KubernetesClient client,
      String installation,
      RuntimeChoice.Kubernetes choice,
      PodTemplate template,
      Function<SessionId, NetworkAccess> networkAccess,
      Function<SessionId, Optional<DisconnectGrant>> disconnect,
      Function<RuntimeSpec, Optional<PodAgent>> agents) {
    try {
      return KubernetesRuntime.start(
          client,
          KubernetesRuntimeSettings.of(installation, template, new AgentTokens(choice.tokenKey()))
              .withNetworkPolicy(
                  sessionPolicy(Optional.ofNullable(client.getNamespace()), template.namespace()),
                  networkAccess)
              .withAgents(agents)
              .withDisconnect(disconnect));
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  /** What the Kubernetes runtime enforces, as the lines printed at start. */
  private static List<String> kubernetesTable(RuntimeChoice.Kubernetes choice, String namespace) {
    return List.of(
        "runtime     kubernetes: a pod per session in namespace "
            + namespace
            + ", image "
            + choice.image(),
        "pods        not root, read-only root filesystem, no privilege escalation, every"
            + " capability dropped, seccomp RuntimeDefault, no service account token");
  }

  /** The port {@code berth agent} listens on in a session pod. */
  static final int AGENT_PORT = 8090;

  /** The labels of the control plane's own pods (deploy/ gives them). */
  static final Map<String, String> CONTROL_PLANE_LABELS =
      Map.of("app.kubernetes.io/name", "berth", "app.kubernetes.io/component", "control-plane");

  /** What a session with egress may still not reach: the private and link-local ranges. */
  static final List<String> PRIVATE_RANGES =
      List.of("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10");

  /**
   * Each session pod's NetworkPolicy: only the control plane reaches its agent (from its own
   * namespace when the sessions live in another), and a session with egress reaches anything but
   * the private ranges (the cluster's pods and services, the node's metadata service), which it was
   * not given.
   */
  static NetworkPolicyTemplate sessionPolicy(
      Optional<String> controlPlaneNamespace, String sessionNamespace) {
    return new NetworkPolicyTemplate(
        CONTROL_PLANE_LABELS,
        controlPlaneNamespace.filter(own -> !own.equals(sessionNamespace)),
        PRIVATE_RANGES);
  }

  /**
   * A session's network is its tenant's grant, read when its runtime is provisioned (so a grant
   * narrowed later applies from the session's next incarnation on).
   */
  private static Function<SessionId, NetworkAccess> networkAccess(
      SessionStore store, TenantDirectory directory) {
    return session ->
        store
            .get(session)
            .flatMap(s -> directory.tenant(s.tenant()))
            .map(Tenant::network)
            .orElse(NetworkAccess.EGRESS);
  }

  /**
   * A session's disconnect policy is its tenant's, or the server's default for a tenant without one
   * (and the administrator's sessions), read when its runtime is provisioned: a policy changed
   * later applies from the session's next incarnation on.
   */
  private static Function<SessionId, Optional<DisconnectGrant>> disconnect(
      ServerConfig config, SessionStore store, TenantDirectory directory) {
    DisconnectGrant fallback = config.lifecycle().controlLease().defaultPolicy();
    return session ->
        Optional.of(
            store
                .get(session)
                .flatMap(s -> directory.tenant(s.tenant()))
                .flatMap(Tenant::disconnect)
                .orElse(fallback));
  }

  private static void awaitFirstList(KubernetesRuntime runtime, String namespace) {
    try {
      if (!runtime.awaitSynced(FIRST_LIST)) {
        // Not fatal: the runtime answers Unknown until it sees its pods, and keeps trying.
        LOG.warn(
            "the Kubernetes API server did not list the session pods of namespace {} within {};"
                + " sessions are observed Unknown until it does",
            namespace,
            FIRST_LIST);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the first pod list", e);
    }
  }
}
