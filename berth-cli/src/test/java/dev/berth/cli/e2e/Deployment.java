package dev.berth.cli.e2e;

import dev.berth.archive.s3.S3TestServer;
import dev.berth.kubernetes.runtime.AgentTokens;
import dev.berth.kubernetes.runtime.KubeletSimulator;
import dev.berth.kubernetes.store.MockApiServer;
import dev.berth.server.store.sql.TestPostgres;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * One store × runtime pair of Berth deployed for real, for the end-to-end suites: {@code bin/berth
 * server} processes (two replicas where the pair supports them) on the pair's store, running
 * sessions on the pair's runtime, and a door to the data plane beneath them (each runtime's agent,
 * its host process, the runtimes it hosts) so that a test can do to it what a crash, a partition or
 * a replayed message would.
 *
 * <p>Kubernetes is simulated as in {@link ClusterIT}: fabric8's mock API server in CRUD mode and
 * the {@link KubeletSimulator}, which runs each pod's agent as a real process on an address of its
 * own.
 */
final class Deployment implements AutoCloseable {

  /** Where the control plane keeps its records ({@code --store}), and the flags that select it. */
  enum Store {
    SQLITE(false, false) {
      @Override
      List<String> flags() {
        return List.of();
      }
    },
    POSTGRES(true, false) {
      /** A fresh database on the PostgreSQL this JVM runs (started once, embedded). */
      @Override
      List<String> flags() {
        return List.of(
            "--store",
            TestPostgres.freshDatabase()
                .jdbcUrl()
                .replace("jdbc:postgresql://", "postgres://postgres@"));
      }
    };

    // The ConfigMap+Lease store joins the matrix here, as one more constant, once `--store
    // kubernetes://NAMESPACE` is selectable:
    //
    //   KUBERNETES(true, true) {
    //     @Override
    //     List<String> flags() {
    //       return List.of("--store", "kubernetes://" + MockApiServer.NAMESPACE);
    //     }
    //   };

    private final boolean shared;
    private final boolean needsApiServer;

    Store(boolean shared, boolean needsApiServer) {
      this.shared = shared;
      this.needsApiServer = needsApiServer;
    }

    /** Whether several replicas may run on it at once. */
    boolean shared() {
      return shared;
    }

    /** Whether it lives in the Kubernetes API server (started then for any runtime). */
    boolean needsApiServer() {
      return needsApiServer;
    }

    /** The server flags that select it; a shared store gets a store of its own each call. */
    abstract List<String> flags();
  }

  /** Where sessions run ({@code --runtime}). */
  enum RuntimeKind {
    LOCAL,
    KUBERNETES
  }

  /**
   * One cell of the matrix. Two replicas only where Berth supports them: a shared store with the
   * Kubernetes runtime (a local runtime's sessions live on one machine, out of another replica's
   * reach, and the server refuses to share its store then).
   */
  record Pair(Store store, RuntimeKind runtime) {
    int replicas() {
      return store.shared() && runtime == RuntimeKind.KUBERNETES ? 2 : 1;
    }

    String label() {
      return store.name().toLowerCase(java.util.Locale.ROOT)
          + " × "
          + runtime.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** A short name, usable in tenant names: e.g. {@code sqlite-local}. */
    String code() {
      return store.name().toLowerCase(java.util.Locale.ROOT)
          + "-"
          + runtime.name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** A runtime's agent: its session-scoped URL and the token it takes. */
  record Agent(String sessionUrl, String token) {}

  private static final String NAMESPACE = MockApiServer.NAMESPACE;
  private static final byte[] TOKEN_KEY =
      "five-cases agent token key, 32+ bytes long".getBytes(StandardCharsets.UTF_8);

  private final Pair pair;
  private final Path work;
  private final @Nullable MockApiServer apiServer;
  private final @Nullable KubeletSimulator kubelet;
  private final List<ServerProcess> replicas = new ArrayList<>();
  private final List<ProcessHandle> strays = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private Deployment(Pair pair, Path work) {
    this.pair = pair;
    this.work = work;
    boolean kubernetes = pair.runtime() == RuntimeKind.KUBERNETES;
    this.apiServer = kubernetes || pair.store().needsApiServer() ? MockApiServer.start() : null;
    this.kubelet = kubernetes ? KubeletSimulator.start(api().client(), NAMESPACE, pods()) : null;
  }

  /** Deploys {@code pair} under {@code work}: its simulated cluster if any, then its replicas. */
  static Deployment start(Pair pair, Path work) {
    Deployment deployment = new Deployment(pair, work);
    try {
      deployment.startReplicas();
      return deployment;
    } catch (RuntimeException e) {
      deployment.close();
      throw e;
    }
  }

  private void startReplicas() {
    Map<String, String> env = new HashMap<>();
    List<String> flags = new ArrayList<>(pair.store().flags());
    if (apiServer != null) {
      env.put("KUBERNETES_MASTER", "http://127.0.0.1:" + apiServer.port());
      env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
      env.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
    }
    if (pair.runtime() == RuntimeKind.KUBERNETES) {
      env.put("BERTH_AGENT_TOKEN_KEY", Base64.getEncoder().encodeToString(TOKEN_KEY));
      flags.addAll(
          List.of(
              "--runtime",
              "kubernetes",
              "--kube-namespace",
              NAMESPACE,
              "--agent-image",
              "berth-agent:test"));
    }
    if (pair.store().shared()) {
      // A shared store's archives are shared too (the server refuses the data directory's then):
      // one S3 bucket, S3Mock in this JVM.
      flags.addAll(List.of("--archive", S3TestServer.get().archiveUrl(S3TestServer.freshPrefix())));
      env.put("AWS_ACCESS_KEY_ID", "test");
      env.put("AWS_SECRET_ACCESS_KEY", "test-secret");
    }
    for (int i = 0; i < pair.replicas(); i++) {
      List<String> arguments = new ArrayList<>(flags);
      if (pair.replicas() > 1) {
        arguments.addAll(List.of("--replica", "replica-" + i));
      }
      replicas.add(
          ServerProcess.start(
              dataDir(i),
              env,
              ServerProcess.Launch.plain().withArguments(arguments.toArray(String[]::new))));
    }
  }

  Pair pair() {
    return pair;
  }

  int replicaCount() {
    return replicas.size();
  }

  /** The public API of replica {@code index} (modulo the replicas there are) with {@code token}. */
  Api api(int index, String token) {
    return new Api(replicas.get(index % replicas.size()).baseUrl(), token);
  }

  Api admin() {
    return api(0, ServerProcess.ADMIN_TOKEN);
  }

  // ---- the data plane -------------------------------------------------------------------------

  /**
   * The agent of {@code runtime}, a runtime of {@code session}, as the control plane reaches it.
   */
  Agent agent(String session, String runtime) {
    return switch (pair.runtime()) {
      case LOCAL -> {
        JsonNode node = ServerProcess.readJson(nodeDir().resolve("node.json"));
        yield new Agent(
            "http://"
                + node.path("host").asString()
                + ":"
                + node.path("port").asInt()
                + "/v1/sessions/"
                + session,
            read(nodeDir().resolve("node.token")).strip());
      }
      case KUBERNETES -> {
        Pod pod = api().client().pods().inNamespace(NAMESPACE).withName(runtime).get();
        int port =
            pod.getSpec().getContainers().getFirst().getPorts().getFirst().getContainerPort();
        yield new Agent(
            "http://" + pod.getStatus().getPodIP() + ":" + port + "/v1/sessions/" + session,
            new AgentTokens(TOKEN_KEY).tokenFor(runtime));
      }
    };
  }

  /** What the agent answers to {@code method path} with the given headers: status and body. */
  Api.Answer callAgent(Agent agent, String method, String path, Map<String, String> headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(agent.sessionUrl() + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + agent.token())
            .method(method, HttpRequest.BodyPublishers.noBody());
    headers.forEach(request::header);
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Api.Answer(response.statusCode(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + agent.sessionUrl() + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The process that hosts {@code runtime}: the node (local), every session's host on this machine;
   * or the pod's agent container (Kubernetes), its only host.
   */
  ProcessHandle host(String runtime) {
    return switch (pair.runtime()) {
      case LOCAL ->
          ProcessHandle.of(
                  ServerProcess.readJson(nodeDir().resolve("node.json")).path("pid").asLong())
              .orElseThrow(() -> new IllegalStateException("the node is not running"));
      case KUBERNETES ->
          kubelet()
              .agentProcess(runtime)
              .orElseThrow(() -> new IllegalStateException("pod " + runtime + " runs no agent"));
    };
  }

  /**
   * Kills {@code host} and what it started with SIGKILL, as a machine or a container dies. What a
   * local node started and that outlives it is ended when the deployment closes.
   */
  void killHost(ProcessHandle host) {
    List<ProcessHandle> tree = host.descendants().toList();
    if (pair.runtime() == RuntimeKind.KUBERNETES) {
      // A container's processes die with it.
      tree.forEach(ProcessHandle::destroyForcibly);
    } else {
      synchronized (strays) {
        strays.addAll(tree);
      }
    }
    host.destroyForcibly();
    host.onExit().orTimeout(30, TimeUnit.SECONDS).join();
  }

  /** Sends {@code signal} (e.g. {@code STOP}, {@code CONT}) to one process. */
  static void signal(ProcessHandle process, String signal) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
              .redirectErrorStream(true)
              .start();
      String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + process.pid() + ": " + said);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Removes {@code runtime} behind the control plane's back, its host left running: the pod deleted
   * (local: the node told to remove it, with the node's own token).
   */
  void removeRuntime(String session, String runtime) {
    switch (pair.runtime()) {
      case LOCAL -> {
        Api.Answer removed =
            callAgent(agent(session, runtime), "DELETE", "?runtime=" + runtime, Map.of());
        if (removed.status() != 204) {
          throw new IllegalStateException("the node answered " + removed + " to the removal");
        }
      }
      case KUBERNETES -> {
        var unused = api().client().pods().inNamespace(NAMESPACE).withName(runtime).delete();
      }
    }
  }

  /**
   * The runtimes that exist for {@code session} as the data plane sees them (the node's list, or
   * the session's pods): not what the control plane believes.
   */
  List<String> runtimesOf(String session) {
    return switch (pair.runtime()) {
      case LOCAL ->
          ServerProcess.nodeRuntimes(dataDir(0)).stream()
              .filter(r -> r.path("session").asString().equals(session))
              .map(r -> r.path("runtime").asString())
              .toList();
      case KUBERNETES ->
          api()
              .client()
              .pods()
              .inNamespace(NAMESPACE)
              .withLabel("berth.dev/session", session)
              .list()
              .getItems()
              .stream()
              .map(p -> p.getMetadata().getName())
              .toList();
    };
  }

  @Override
  public void close() {
    for (ServerProcess replica : replicas) {
      replica.close();
    }
    if (pair.runtime() == RuntimeKind.LOCAL && !replicas.isEmpty()) {
      ServerProcess.killNode(dataDir(0));
    }
    synchronized (strays) {
      strays.forEach(ProcessHandle::destroyForcibly);
    }
    if (kubelet != null) {
      kubelet.close();
    }
    if (apiServer != null) {
      apiServer.close();
    }
  }

  private Path dataDir(int replica) {
    return work.resolve("replica-" + replica);
  }

  private Path nodeDir() {
    return dataDir(0).resolve("node");
  }

  private Path pods() {
    try {
      return Files.createDirectories(work.resolve("pods"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private MockApiServer api() {
    return Optional.ofNullable(apiServer)
        .orElseThrow(() -> new IllegalStateException(pair.label() + " has no API server"));
  }

  private KubeletSimulator kubelet() {
    return Optional.ofNullable(kubelet)
        .orElseThrow(() -> new IllegalStateException(pair.label() + " has no kubelet"));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
