package dev.berth.kubernetes.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.RuntimeListing;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.NetworkAccess;
import dev.berth.kubernetes.identity.KubernetesTokenReview;
import dev.berth.kubernetes.store.StoreCalls;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The control plane's RBAC (deploy/base/rbac.yaml) grants exactly the API calls the Kubernetes
 * runtime and the store on Kubernetes ({@link StoreCalls}) make: no call they make is refused, and
 * no grant goes unused.
 *
 * <p>The runtime is driven through everything it does in production, network policies on, on the
 * simulated cluster: provision (again, and concurrently, so that every AlreadyExists path runs),
 * observe until Running, list, resolve an endpoint, remove until confirmed, observe and resolve
 * what was never provisioned, and a restarted control plane (a new runtime on a new client)
 * observing, listing and removing what the first one made. Every request its clients send is
 * recorded at the HTTP level, by an interceptor on their HTTP client (the kubelet simulator has a
 * client of its own, which is not the control plane's), and named in RBAC's terms: API group,
 * resource (a subresource as {@code resource/sub}) and verb. The set of those is compared with the
 * rules of the Role that rbac.yaml binds to the control plane's ServiceAccount. The one
 * cluster-scoped call, a TokenReview of a client's service account token ({@link
 * KubernetesTokenReview}, made on the same recording client), must be all that the file grants
 * cluster-wide, through the built-in ClusterRole {@code system:auth-delegator}.
 */
class RuntimeRbacTest {
  private static final String INSTALLATION = "rbac-installation";
  private static final String CONTROL_PLANE = "berth-control-plane";
  private static final SecureRandom IDS = new SecureRandom();
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final Pattern SLASH = Pattern.compile("/");

  /**
   * What the built-in ClusterRoles that rbac.yaml might bind grant (as kube-apiserver bootstraps
   * them); a binding to one not listed here fails the test, since it cannot tell what it grants.
   */
  private static final Map<String, Set<Grant>> BUILT_IN_CLUSTER_ROLES =
      Map.of(
          "system:auth-delegator",
          Set.of(
              new Grant("authentication.k8s.io", "tokenreviews", "create"),
              new Grant("authorization.k8s.io", "subjectaccessreviews", "create")));

  @RegisterExtension static final SimulatedCluster cluster = new SimulatedCluster();

  /** An agent type whose provider Secret nobody made. */
  private static final PodAgent MISSING_PROVIDER =
      new PodAgent(
          "/opt/cli",
          "platform-default",
          List.of(),
          new PodAgent.Provider(
              "https://api.example",
              "anthropic",
              Optional.empty(),
              Optional.empty(),
              new PodAgent.SecretRef("berth-provider-missing", "token")));

  /** Every request the runtimes' clients sent, in order. */
  private static final Queue<Request> requests = new ConcurrentLinkedQueue<>();

  @BeforeAll
  static void driveTheRuntimeThroughEverythingItDoes() throws Exception {
    try (KubernetesClient client = recordingClient();
        KubernetesClient restartedClient = recordingClient()) {
      SessionId egress = SessionId.generate(IDS);
      SessionId none = SessionId.generate(IDS);
      // Network policies on, as in production; one session without network.
      KubernetesRuntimeSettings settings =
          KubernetesRuntimeSettings.of(
                  INSTALLATION, SimulatedCluster.TEMPLATE, SimulatedCluster.TOKENS)
              .withNetworkPolicy(
                  SimulatedCluster.POLICY,
                  session -> session.equals(none) ? NetworkAccess.NONE : NetworkAccess.EGRESS)
              .withAgents(spec -> Optional.of(MISSING_PROVIDER));
      try (KubernetesRuntime runtime = KubernetesRuntime.start(client, settings)) {
        assertThat(runtime.awaitSynced(PATIENCE)).isTrue();

        // What was never provisioned: Gone from the informer, read directly for an endpoint,
        // and removed (nothing to delete).
        RuntimeRef never = RuntimeRef.planned(KubernetesRuntime.KIND, SessionId.generate(IDS), 1);
        assertThat(runtime.observe(never)).isInstanceOf(RuntimeObservation.Gone.class);
        assertThatThrownBy(() -> runtime.resolve(never))
            .isInstanceOf(AgentUnreachableException.class);
        assertThat(runtime.remove(never)).isInstanceOf(RemovalResult.Confirmed.class);

        // Provisioned concurrently, then again: the Secret, NetworkPolicy and pod already exist.
        RuntimeSpec first = spec(egress, 1, false);
        provisionConcurrently(runtime, first, 3);
        runtime.provision(first);
        awaitRunning(runtime, first);
        assertThat(runtime.resolve(first.runtime()).runtimeName())
            .isEqualTo(first.runtime().name());
        assertThat(runtime.list())
            .extracting(RuntimeListing::name)
            .containsExactly(first.runtime().name());

        // A restarted control plane (a new runtime on a new client) takes over: it finds the pod,
        // removes it, and provisions the session's next incarnation, a resume.
        RuntimeSpec resumed = spec(egress, 2, true);
        try (KubernetesRuntime restarted = KubernetesRuntime.start(restartedClient, settings)) {
          assertThat(restarted.awaitSynced(PATIENCE)).isTrue();
          awaitRunning(restarted, first);
          assertThat(restarted.resolve(first.runtime()))
              .isEqualTo(runtime.resolve(first.runtime()));
          assertThat(restarted.list()).hasSize(1);
          awaitRemoved(restarted, first);
          assertThat(restarted.observe(first.runtime())).matches(RuntimeRbacTest::gone);
          restarted.provision(resumed);
          awaitRunning(restarted, resumed);
        }

        // The first runtime sees the resume, removes it, and what is already gone.
        awaitRunning(runtime, resumed);
        awaitRemoved(runtime, resumed);
        assertThat(runtime.remove(first.runtime())).isInstanceOf(RemovalResult.Confirmed.class);

        // A session without network, removed while its pod is still starting.
        RuntimeSpec confined = spec(none, 1, false);
        runtime.provision(confined);
        awaitRemoved(runtime, confined);
        for (RuntimeSpec spec : List.of(first, resumed, confined)) {
          await().atMost(PATIENCE).until(() -> gone(runtime.observe(spec.runtime())));
        }
        assertThat(runtime.list()).isEmpty();

        // An agent session whose provider Secret the operator has not made: the Secret is read
        // (its one read), no object is made, and the runtime is Failed until it is removed.
        SessionId agentSession = SessionId.generate(IDS);
        RuntimeSpec agent =
            new RuntimeSpec(
                RuntimeRef.planned(KubernetesRuntime.KIND, agentSession, 1),
                new WorkloadType("claude-code"),
                new OwnershipLabels(INSTALLATION, agentSession, 1));
        runtime.provision(agent);
        assertThat(runtime.observe(agent.runtime()))
            .isInstanceOfSatisfying(
                RuntimeObservation.Failed.class,
                f ->
                    assertThat(f.reason())
                        .isEqualTo(dev.berth.core.session.FailureReason.CREDENTIAL_REFERENCE));
        assertThat(runtime.remove(agent.runtime())).isInstanceOf(RemovalResult.Confirmed.class);
        assertThat(runtime.observe(agent.runtime())).matches(RuntimeRbacTest::gone);
      }
      // The control plane's one other call: a client's service account token, reviewed (the
      // CRUD mock server stores the review instead of answering it; the request is what counts).
      var unused = new KubernetesTokenReview(client, "berth").review("header.claims.signature");
      // The store on ConfigMaps and Leases (--store kubernetes://NAMESPACE), in the same
      // namespace, through every kind of call it makes.
      StoreCalls.driveEverything(client, SimulatedCluster.NAMESPACE);
    }
  }

  @Test
  void theControlPlanesRoleGrantsExactlyTheCallsTheRuntimeMakes() throws IOException {
    Map<Grant, String> used = used(call -> call.namespace() != null);
    Set<Grant> granted = grantedInTheNamespace(rbac());

    Set<Grant> unused = new TreeSet<>(granted);
    unused.removeAll(used.keySet());
    Set<Grant> refused = new TreeSet<>(used.keySet());
    refused.removeAll(granted);
    assertThat(granted)
        .as(
            "deploy/base/rbac.yaml must grant exactly the calls the runtime makes.%n"
                + "Granted but never called: %s%n"
                + "Called but not granted: %s%n"
                + "Called (with a request each):%n%s",
            unused, refused, table(used))
        .isEqualTo(used.keySet());
  }

  @Test
  void rbacYamlGrantsClusterWideOnlyTheBuiltInRoleOfTheTokenReviewsTheControlPlaneAsksFor()
      throws IOException {
    Map<Grant, String> clusterScoped = used(call -> call.namespace() == null);
    Grant tokenReview = new Grant("authentication.k8s.io", "tokenreviews", "create");
    assertThat(clusterScoped.keySet()).as("cluster-scoped calls").containsExactly(tokenReview);

    Map<String, Set<Grant>> clusterWide = grantedClusterWide(rbac());
    assertThat(clusterWide)
        .as(
            "deploy/base/rbac.yaml grants cluster-wide only what TokenReview needs, by the smallest"
                + " built-in ClusterRole that holds it")
        .containsOnlyKeys(
            "ClusterRoleBinding " + CONTROL_PLANE + "-auth-delegator to system:auth-delegator");
    assertThat(clusterWide.values().iterator().next()).contains(tokenReview);
  }

  @Test
  void everyRequestIsAResourceRequestInTheRuntimesNamespaceAndTheWatchWasRecorded() {
    List<String> elsewhere = new ArrayList<>();
    for (Request request : requests) {
      Optional<Call> call = Call.of(request);
      if (call.isEmpty()
          || (call.get().namespace() != null
              && !SimulatedCluster.NAMESPACE.equals(call.get().namespace()))) {
        elsewhere.add(request.toString());
      }
    }
    assertThat(elsewhere)
        .as("requests that are not resource requests in namespace " + SimulatedCluster.NAMESPACE)
        .isEmpty();
    // The informer's watch is a streamed (WebSocket) request: the recording must hold it too.
    assertThat(requests)
        .as("the recorded requests hold the informer's watch")
        .anyMatch(
            request -> Call.of(request).map(c -> c.grant().verb().equals("watch")).orElse(false));
  }

  // -- driving the runtime

  private static KubernetesClient recordingClient() {
    Interceptor recorder =
        new Interceptor() {
          @Override
          public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            requests.add(new Request(request.method(), request.uri()));
          }
        };
    return SimulatedCluster.client(
        cluster.apiServerPort(), http -> http.addOrReplaceInterceptor("rbac-recorder", recorder));
  }

  private static RuntimeSpec spec(SessionId session, long incarnation, boolean awaitRestore) {
    return new RuntimeSpec(
        RuntimeRef.planned(KubernetesRuntime.KIND, session, incarnation),
        WorkloadType.SHELL,
        new OwnershipLabels(INSTALLATION, session, incarnation),
        awaitRestore);
  }

  private static void provisionConcurrently(KubernetesRuntime runtime, RuntimeSpec spec, int n)
      throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        done.add(
            threads.submit(
                () -> {
                  go.await();
                  runtime.provision(spec);
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> future : done) {
        future.get();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private static void awaitRunning(KubernetesRuntime runtime, RuntimeSpec spec) {
    await()
        .atMost(PATIENCE)
        .until(() -> runtime.observe(spec.runtime()), o -> o instanceof RuntimeObservation.Running);
  }

  private static void awaitRemoved(KubernetesRuntime runtime, RuntimeSpec spec) {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> runtime.remove(spec.runtime()), r -> r instanceof RemovalResult.Confirmed);
  }

  private static boolean gone(RuntimeObservation observation) {
    return observation instanceof RuntimeObservation.Gone;
  }

  // -- what was called

  /** A request as sent: its method and URI. */
  record Request(String method, URI uri) {
    @Override
    public String toString() {
      return method + " " + uri;
    }
  }

  /** One permission in RBAC's terms; the group is "" for the core API. */
  record Grant(String apiGroup, String resource, String verb) implements Comparable<Grant> {
    @Override
    public int compareTo(Grant other) {
      return toString().compareTo(other.toString());
    }

    /** As KustomizeManifestsTest (berth-cli) writes a rule: "apiGroup/resource: verb". */
    @Override
    public String toString() {
      return apiGroup + "/" + resource + ": " + verb;
    }
  }

  /** A resource request: what it needs granted, and its namespace (null: cluster-scoped). */
  record Call(Grant grant, @Nullable String namespace) {

    /**
     * A request named as the API server's authorizer names it: {@code /api/v1/...} is the core
     * group, {@code /apis/<group>/<version>/...} a named one; then {@code namespaces/<ns>/} for a
     * namespaced resource, the resource, a name, a subresource. Empty for a non-resource request
     * (discovery, {@code /version}).
     */
    static Optional<Call> of(Request request) {
      List<String> path =
          new ArrayList<>(
              Arrays.stream(SLASH.split(request.uri().getPath()))
                  .filter(segment -> !segment.isEmpty())
                  .toList());
      String group;
      if (path.size() >= 3 && path.get(0).equals("api")) {
        group = "";
        path.subList(0, 2).clear();
      } else if (path.size() >= 4 && path.get(0).equals("apis")) {
        group = path.get(1);
        path.subList(0, 3).clear();
      } else {
        return Optional.empty();
      }
      boolean watchPath = path.get(0).equals("watch");
      if (watchPath) {
        path.remove(0);
      }
      String namespace = null;
      if (path.size() >= 3 && path.get(0).equals("namespaces")) {
        namespace = path.get(1);
        path.subList(0, 2).clear();
      }
      if (path.isEmpty() || path.size() > 3) {
        return Optional.empty();
      }
      String resource = path.size() == 3 ? path.get(0) + "/" + path.get(2) : path.get(0);
      boolean named = path.size() >= 2;
      String query = Optional.ofNullable(request.uri().getQuery()).orElse("");
      boolean watch =
          watchPath
              || Arrays.stream(query.split("&"))
                  .anyMatch(p -> p.equals("watch=true") || p.equals("watch=1"));
      String verb =
          switch (request.method()) {
            case "GET", "HEAD" -> watch ? "watch" : named ? "get" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> fail("a request with method %s: %s", request.method(), request);
          };
      return Optional.of(new Call(new Grant(group, resource, verb), namespace));
    }
  }

  /** The grants the recorded calls that {@code which} picks need, each with a request for it. */
  private static Map<Grant, String> used(Predicate<Call> which) {
    Map<Grant, String> used = new TreeMap<>();
    for (Request request : requests) {
      Call.of(request)
          .filter(which)
          .ifPresent(call -> used.putIfAbsent(call.grant(), request.toString()));
    }
    return used;
  }

  private static String table(Map<Grant, String> used) {
    StringBuilder table = new StringBuilder();
    used.forEach(
        (grant, request) ->
            table.append("  ").append(grant).append("    e.g. ").append(request).append('\n'));
    return table.toString();
  }

  // -- what rbac.yaml grants

  /** The objects of deploy/base/rbac.yaml, read from the module's parent directory. */
  private static List<HasMetadata> rbac() throws IOException {
    Path file = Path.of(System.getProperty("user.dir"), "..", "deploy", "base", "rbac.yaml");
    assertThat(file).as("deploy/base/rbac.yaml, from the module directory").isRegularFile();
    Object parsed;
    try (InputStream in = Files.newInputStream(file)) {
      parsed = new KubernetesSerialization().unmarshal(in);
    }
    List<HasMetadata> objects = new ArrayList<>();
    for (Object object : parsed instanceof Collection<?> many ? many : List.of(parsed)) {
      assertThat(object).isInstanceOf(HasMetadata.class);
      objects.add((HasMetadata) object);
    }
    return objects;
  }

  /** What the RoleBindings give the control plane's ServiceAccount in its namespace. */
  private static Set<Grant> grantedInTheNamespace(List<HasMetadata> objects) {
    Set<Grant> granted = new TreeSet<>();
    for (HasMetadata object : objects) {
      if (object instanceof RoleBinding binding && bindsTheControlPlane(binding.getSubjects())) {
        granted.addAll(rulesOf(objects, binding.getRoleRef()));
      }
    }
    return granted;
  }

  /**
   * What rbac.yaml grants beyond a namespace: every ClusterRole it defines (bound or not), and what
   * every ClusterRoleBinding binds; by the name of the ClusterRole.
   */
  private static Map<String, Set<Grant>> grantedClusterWide(List<HasMetadata> objects) {
    Map<String, Set<Grant>> granted = new TreeMap<>();
    for (HasMetadata object : objects) {
      if (object instanceof ClusterRole role) {
        granted.put("ClusterRole " + role.getMetadata().getName(), grants(role.getRules()));
      } else if (object instanceof ClusterRoleBinding binding) {
        granted.put(
            "ClusterRoleBinding "
                + binding.getMetadata().getName()
                + " to "
                + binding.getRoleRef().getName(),
            rulesOf(objects, binding.getRoleRef()));
      }
    }
    return granted;
  }

  private static boolean bindsTheControlPlane(List<Subject> subjects) {
    return subjects.stream()
        .anyMatch(s -> s.getKind().equals("ServiceAccount") && s.getName().equals(CONTROL_PLANE));
  }

  /** The rules of the Role or ClusterRole a binding refers to: in rbac.yaml, or built in. */
  private static Set<Grant> rulesOf(List<HasMetadata> objects, RoleRef ref) {
    for (HasMetadata object : objects) {
      if (object.getKind().equals(ref.getKind())
          && object.getMetadata().getName().equals(ref.getName())) {
        return switch (object) {
          case Role role -> grants(role.getRules());
          case ClusterRole role -> grants(role.getRules());
          default -> fail("%s %s is not a role", ref.getKind(), ref.getName());
        };
      }
    }
    if (ref.getKind().equals("ClusterRole") && BUILT_IN_CLUSTER_ROLES.containsKey(ref.getName())) {
      return BUILT_IN_CLUSTER_ROLES.get(ref.getName());
    }
    return fail(
        "rbac.yaml binds %s %s, which it does not define and this test does not know",
        ref.getKind(), ref.getName());
  }

  private static Set<Grant> grants(List<PolicyRule> rules) {
    Set<Grant> grants = new TreeSet<>();
    for (PolicyRule rule : rules) {
      assertThat(rule.getResourceNames())
          .as("a rule with resourceNames (this test compares whole resources)")
          .isNullOrEmpty();
      assertThat(rule.getNonResourceURLs())
          .as("a rule with nonResourceURLs (the runtime makes no non-resource request)")
          .isNullOrEmpty();
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          for (String verb : rule.getVerbs()) {
            grants.add(new Grant(group, resource, verb));
          }
        }
      }
    }
    return grants;
  }
}
