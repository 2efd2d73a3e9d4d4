package dev.berth.kubernetes.runtime;

import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeListing;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.FailureReason;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import dev.berth.protocol.wire.AgentEndpoints;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code kubernetes} runtime: one pod per session incarnation, named after the runtime ({@code
 * berth-<session>-<incarnation>}) in the template's namespace, labelled with its ownership labels,
 * next to a Secret holding its agent's token (see {@link AgentTokens}) and, when configured, a
 * NetworkPolicy confining it (see {@link NetworkPolicyTemplate}).
 *
 * <p>Observation comes from one informer on the installation's pods (label {@code
 * berth.dev/installation}), not from a read per call: a control plane observes every session on
 * every pass. What the informer cannot vouch for is Unknown, never Gone: before its first list, and
 * while its watch is down (the API server is unreachable), since a pod it does not hold then may
 * well exist. The watch also lags the API server by a moment, and two cases cannot wait for it: a
 * pod provisioned here that the watch has not delivered yet (right after {@link #provision} the
 * runtime must not be observed Gone), and a pod the cache still holds while it is being deleted or
 * after its removal was confirmed (right after a confirmed removal it must not be observed as
 * existing). Those are read directly, until the watch catches up.
 *
 * <p>Removal deletes the pod (in the background: the kubelet stops its agent within the pod's grace
 * period) and its token Secret, and is Confirmed only once the API server answers that the pod does
 * not exist; while the pod is terminating it is InProgress.
 */
public final class KubernetesRuntime implements Runtime, AgentEndpoints, AutoCloseable {

  public static final String KIND = "kubernetes";

  private final KubernetesClient client;
  private final KubernetesRuntimeSettings settings;
  private final String installation;
  private final PodTemplate template;
  private final AgentTokens tokens;
  private final PodAddress address;
  private final SharedIndexInformer<Pod> informer;
  private final CompletableFuture<Void> synced;

  /** Pods provisioned here that the informer has not delivered yet: read directly meanwhile. */
  private final Set<String> unseen = ConcurrentHashMap.newKeySet();

  /** Pods whose removal was confirmed while the informer still held them: read directly too. */
  private final Set<String> removed = ConcurrentHashMap.newKeySet();

  /**
   * Runtimes whose pod was not made because it could not have started (its provider Secret is
   * missing, its provider profile is bad), by name: observed Failed until removed. Held in memory
   * only: a restarted control plane observes such a runtime Gone, provisions it again, and finds
   * the same problem (or none, once the operator made the Secret).
   */
  private final Map<String, RuntimeObservation.Failed> refused = new ConcurrentHashMap<>();

  private KubernetesRuntime(KubernetesClient client, KubernetesRuntimeSettings settings) {
    this.client = client;
    this.settings = settings;
    this.installation = settings.installation();
    this.template = settings.pod();
    this.tokens = settings.tokens();
    this.address = settings.address();
    this.informer =
        pods().withLabel(OwnershipLabels.INSTALLATION, installation).runnableInformer(0);
    informer.addEventHandler(new Seen());
    // The API server may be away when the control plane starts: keep trying, Unknown meanwhile.
    informer.exceptionHandler((started, failure) -> true);
    this.synced = informer.start().toCompletableFuture();
  }

  /**
   * Starts the runtime: its informer begins listing at once, and {@link #observe} answers Unknown
   * until it has (see {@link #awaitSynced}). {@link #close} stops it.
   */
  public static KubernetesRuntime start(
      KubernetesClient client, KubernetesRuntimeSettings settings) {
    return new KubernetesRuntime(
        Objects.requireNonNull(client, "client"), Objects.requireNonNull(settings, "settings"));
  }

  /** Waits up to {@code timeout} for the informer's first list; false when it has not come. */
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    try {
      synced.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException | ExecutionException e) {
      return false;
    }
  }

  /**
   * The informer holds a current picture: it has listed, and its watch is up. While not, every pod
   * it does not hold is observed Unknown; a health check may report this.
   */
  public boolean observing() {
    return informer.hasSynced() && informer.isWatching();
  }

  /** The informer has listed and watches: no request to the API server is made. */
  @Override
  public void checkReachable() {
    if (!observing()) {
      throw new IllegalStateException(
          "the pod informer of installation "
              + installation
              + (informer.hasSynced()
                  ? " lost its watch; reconnecting"
                  : " has not listed pods yet"));
    }
  }

  @Override
  public String kind() {
    return KIND;
  }

  /**
   * Creates the token Secret and the NetworkPolicy (when configured), then the pod; each already
   * existing counts as created, so that concurrent or repeated provisions of one spec make one pod.
   * The pod comes last: a pod whose Secret is missing would report {@code
   * CreateContainerConfigError}, and one without its policy would run unconfined for a moment. Both
   * are then given the pod as their owner, so that they go with it even when nobody removes them.
   *
   * <p>An agent session's pod runs its CLI beside a credential proxy sidecar (see {@link
   * RuntimePods}); its provider and the operator's Secret holding the token are checked first, and
   * when either would keep the proxy from starting no object is made: the runtime is observed
   * Failed with CREDENTIAL_REFERENCE until it is removed; so is one whose provider has neither
   * configured CIDRs nor an address its host resolves to now (RUNTIME_CONFIG_INVALID: its
   * NetworkPolicy could name no address, and would not open every one instead). A spec that awaits
   * a restore gives the agent {@code --await-restore}, so it starts nothing before its archive
   * came.
   */
  @Override
  public void provision(RuntimeSpec spec) {
    String name = spec.runtime().name();
    removed.remove(name);
    Optional<PodAgent> agent = agentOf(spec);
    if (agent.isEmpty() && !spec.workload().equals(WorkloadType.SHELL)) {
      refused.put(
          name,
          new RuntimeObservation.Failed(
              FailureReason.RUNTIME_CONFIG_INVALID,
              "workload type "
                  + spec.workload().value()
                  + " is not configured for pods on this installation"));
      return;
    }
    Optional<String> credential =
        agent.flatMap(
            a ->
                ProviderSecrets.problem(
                    a,
                    template.namespace(),
                    secret -> call("read", secret, () -> secrets().withName(secret).get())));
    if (credential.isPresent()) {
      refused.put(
          name,
          new RuntimeObservation.Failed(FailureReason.CREDENTIAL_REFERENCE, credential.get()));
      return;
    }
    Optional<NetworkPolicy> policy;
    try {
      policy =
          settings
              .networkPolicy()
              .map(
                  t ->
                      SessionNetworkPolicies.policy(
                          spec,
                          template,
                          t,
                          settings.networkAccess().apply(spec.labels().session()),
                          agent,
                          settings.providerAddresses()));
    } catch (SessionNetworkPolicies.UnresolvedProvider e) {
      refused.put(
          name, new RuntimeObservation.Failed(FailureReason.RUNTIME_CONFIG_INVALID, e.reason()));
      return;
    }
    refused.remove(name);
    unseen.add(name);
    Secret secret = RuntimePods.secret(spec, template, tokens.tokenFor(name), agent);
    call("create", RuntimePods.secretName(name), () -> createIfAbsent(secrets(), secret));
    policy.ifPresent(p -> call("create", name, () -> createIfAbsent(policies(), p)));
    Optional<Pod> created =
        call(
            "create",
            name,
            () ->
                createIfAbsent(
                    pods(),
                    RuntimePods.withDisconnect(
                        RuntimePods.pod(spec, template, agent),
                        settings.disconnect().apply(spec.labels().session()))));
    Optional<Pod> pod =
        created.or(
            () -> call("read", name, () -> Optional.ofNullable(pods().withName(name).get())));
    Optional<Pod> owner = pod.filter(p -> p.getMetadata().getUid() != null);
    owner.ifPresent(
        p -> {
          String secretName = RuntimePods.secretName(name);
          call("own", secretName, () -> own(secrets().withName(secretName), p));
          if (policy.isPresent()) {
            call("own", name, () -> own(policies().withName(name), p));
          }
        });
  }

  /** What an agent session's pod runs; empty for a shell (or a type not configured for pods). */
  private Optional<PodAgent> agentOf(RuntimeSpec spec) {
    return spec.workload().equals(WorkloadType.SHELL)
        ? Optional.empty()
        : settings.agents().apply(spec);
  }

  @Override
  public RuntimeObservation observe(RuntimeRef runtime) {
    RuntimeObservation.Failed notMade = refused.get(runtime.name());
    if (notMade != null) {
      return notMade;
    }
    if (!informer.hasSynced()) {
      return new RuntimeObservation.Unknown(
          "the pod informer of installation " + installation + " has not listed pods yet");
    }
    if (!informer.isWatching()) {
      return new RuntimeObservation.Unknown(
          "the pod watch of installation " + installation + " is down; reconnecting");
    }
    // Read before the cache: the informer updates its cache before it tells its handlers.
    boolean provisionedUnseen = unseen.contains(runtime.name());
    Pod cached = informer.getStore().getByKey(key(runtime.name()));
    if (cached != null) {
      boolean deleting =
          cached.getMetadata().getDeletionTimestamp() != null || removed.contains(runtime.name());
      return deleting ? read(runtime.name()) : observe(cached);
    }
    if (provisionedUnseen) {
      return read(runtime.name());
    }
    return new RuntimeObservation.Gone(
        "no pod " + template.namespace() + "/" + runtime.name() + " exists");
  }

  /** A pod the informer cannot vouch for yet (see the class comment): asked for directly. */
  private RuntimeObservation read(String name) {
    try {
      Pod pod = pods().withName(name).get();
      if (pod == null) {
        unseen.remove(name);
        return new RuntimeObservation.Gone(
            "no pod " + template.namespace() + "/" + name + " exists");
      }
      return observe(pod);
    } catch (KubernetesClientException e) {
      return new RuntimeObservation.Unknown("could not read pod " + name + ": " + e.getMessage());
    }
  }

  private RuntimeObservation observe(Pod pod) {
    return PodStates.observe(pod, address.of(pod).map(a -> sessionUrl(a, pod)));
  }

  @Override
  public RemovalResult remove(RuntimeRef runtime) {
    String name = runtime.name();
    refused.remove(name);
    try {
      List<?> deleting = pods().withName(name).delete();
      if (!deleting.isEmpty()) {
        return new RemovalResult.InProgress("pod " + name + " is terminating");
      }
      secrets().withName(RuntimePods.secretName(name)).delete();
      if (settings.networkPolicy().isPresent()) {
        policies().withName(name).delete();
      }
      unseen.remove(name);
      if (informer.getStore().getByKey(key(name)) != null) {
        removed.add(name);
      }
      return new RemovalResult.Confirmed();
    } catch (KubernetesClientException e) {
      return new RemovalResult.Unconfirmed(
          "could not delete pod "
              + template.namespace()
              + "/"
              + name
              + " or its token Secret or NetworkPolicy (HTTP "
              + e.getCode()
              + ": "
              + e.getMessage()
              + "); the pod may still run, and removal is asked again on the next pass");
    }
  }

  /**
   * Lists from the API server, not the informer, so that an inventory is never taken from a stale
   * picture; pods whose ownership labels do not parse are left out, since no session can claim
   * them.
   */
  @Override
  public List<RuntimeListing> list() {
    PodList found =
        call(
            "list",
            "labelled " + OwnershipLabels.INSTALLATION + "=" + installation,
            () -> pods().withLabel(OwnershipLabels.INSTALLATION, installation).list());
    List<RuntimeListing> listings = new ArrayList<>();
    for (Pod pod : found.getItems()) {
      ownership(pod)
          .ifPresent(
              labels ->
                  listings.add(
                      new RuntimeListing(pod.getMetadata().getName(), labels, observe(pod))));
    }
    return listings;
  }

  @Override
  public Endpoint resolve(RuntimeRef runtime) {
    Pod pod = informer.getStore().getByKey(key(runtime.name()));
    if (pod == null) {
      pod = call("read", runtime.name(), () -> pods().withName(runtime.name()).get());
    }
    if (pod == null) {
      throw new AgentUnreachableException(
          "runtime " + runtime.name(),
          "no pod " + template.namespace() + "/" + runtime.name() + " exists");
    }
    Pod found = pod;
    PodAddress.Address at =
        address
            .of(found)
            .orElseThrow(
                () ->
                    new AgentUnreachableException(
                        "runtime " + runtime.name(), "its pod has no IP address yet"));
    return new Endpoint(sessionUrl(at, found), tokens.tokenFor(runtime.name()), runtime.name());
  }

  @Override
  public void close() {
    informer.close();
  }

  private static String sessionUrl(PodAddress.Address at, Pod pod) {
    String session = pod.getMetadata().getLabels().get(OwnershipLabels.SESSION);
    return at.httpBase() + "/v1/sessions/" + session;
  }

  private Optional<OwnershipLabels> ownership(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    String session = labels.get(OwnershipLabels.SESSION);
    String incarnation = labels.get(OwnershipLabels.INCARNATION);
    if (session == null || incarnation == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new OwnershipLabels(installation, new SessionId(session), Long.parseLong(incarnation)));
    } catch (InvalidValueException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> Optional<T> createIfAbsent(
      NonNamespaceOperation<T, ?, ? extends Resource<T>> api, T object) {
    try {
      return Optional.of(api.resource(object).create());
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * A merge patch, not an edit under the resourceVersion read: concurrent provisions of one spec
   * all write the same owner, and none of them should fail because another wrote it first.
   */
  private <T> T own(Resource<T> object, Pod pod) {
    Map<String, Object> patch =
        Map.of("metadata", Map.of("ownerReferences", List.of(RuntimePods.ownedBy(pod))));
    return object.patch(
        PatchContext.of(PatchType.JSON_MERGE), client.getKubernetesSerialization().asJson(patch));
  }

  private <R> R call(String action, String what, java.util.function.Supplier<R> request) {
    try {
      return request.get();
    } catch (KubernetesClientException e) {
      throw new KubernetesRuntimeException(
          "could not "
              + action
              + " "
              + template.namespace()
              + "/"
              + what
              + " (HTTP "
              + e.getCode()
              + ": "
              + e.getMessage()
              + "); check that the API server is reachable and, on a refusal (403), that the"
              + " control plane's service account has the grants of deploy/base/rbac.yaml's Role"
              + " in namespace "
              + template.namespace(),
          e);
    }
  }

  private String key(String name) {
    return Cache.namespaceKeyFunc(template.namespace(), name);
  }

  private NonNamespaceOperation<Pod, PodList, PodResource> pods() {
    return client.pods().inNamespace(template.namespace());
  }

  private NonNamespaceOperation<NetworkPolicy, ?, Resource<NetworkPolicy>> policies() {
    return client.network().v1().networkPolicies().inNamespace(template.namespace());
  }

  private NonNamespaceOperation<Secret, ?, Resource<Secret>> secrets() {
    MixedOperation<Secret, ?, Resource<Secret>> all = client.secrets();
    return all.inNamespace(template.namespace());
  }

  /**
   * Drops a pod from {@link #unseen} once the informer holds it (or saw it go), and from {@link
   * #removed} once it saw it go.
   */
  private final class Seen implements ResourceEventHandler<Pod> {
    @Override
    public void onAdd(Pod pod) {
      unseen.remove(pod.getMetadata().getName());
    }

    @Override
    public void onUpdate(Pod before, Pod after) {
      unseen.remove(after.getMetadata().getName());
    }

    @Override
    public void onDelete(Pod pod, boolean finalStateUnknown) {
      unseen.remove(pod.getMetadata().getName());
      removed.remove(pod.getMetadata().getName());
    }
  }
}
