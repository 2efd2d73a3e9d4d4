package dev.berth.kubernetes.runtime;

import dev.berth.core.tenant.NetworkAccess;
import dev.berth.kubernetes.store.MockApiServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A simulated cluster for the runtime's tests, one per test class (register it as a static
 * extension): fabric8's mock API server in CRUD mode, the {@link KubeletSimulator} running its
 * pods' agents as local processes, and a {@link TcpProxy} in front of the API server for the
 * runtimes under test, so that they can lose contact while the simulator (the node) keeps its own.
 */
final class SimulatedCluster implements BeforeAllCallback, AfterAllCallback {
  static final String NAMESPACE = "berth";
  static final PodTemplate TEMPLATE =
      new PodTemplate(
          NAMESPACE,
          "berth:test",
          List.of("berth"),
          8090,
          PodTemplate.Resources.defaults(),
          Optional.empty(),
          Optional.of("1Gi"));
  static final NetworkPolicyTemplate POLICY =
      new NetworkPolicyTemplate(
          Map.of("app.kubernetes.io/name", "berth"),
          Optional.empty(),
          List.of("169.254.169.254/32"));
  static final AgentTokens TOKENS =
      new AgentTokens("a test key of at least thirty-two bytes".getBytes(StandardCharsets.UTF_8));

  private @Nullable Running running;

  /** What runs while the test class does. */
  private record Running(
      Path pods,
      MockApiServer server,
      KubernetesClient direct,
      TcpProxy proxy,
      KubernetesClient proxied,
      KubeletSimulator kubelet) {}

  private final List<KubernetesRuntime> runtimes = new ArrayList<>();

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    Path pods = Files.createTempDirectory("berth-pods");
    MockApiServer server = MockApiServer.start();
    KubernetesClient direct = client(server.port());
    TcpProxy proxy = new TcpProxy(server.port());
    running =
        new Running(
            pods,
            server,
            direct,
            proxy,
            client(proxy.port()),
            KubeletSimulator.start(direct, NAMESPACE, pods));
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    Running r = running();
    closeRuntimes();
    r.kubelet().close();
    r.proxied().close();
    r.proxy().close();
    r.direct().close();
    r.server().close();
    try (Stream<Path> files = Files.walk(r.pods())) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
    running = null;
  }

  private Running running() {
    Running r = running;
    if (r == null) {
      throw new IllegalStateException("register the cluster as a static @RegisterExtension field");
    }
    return r;
  }

  /**
   * A client that fails fast: no retries of a failed request, and a watch that reconnects within a
   * tenth of a second, so that lost and regained contact show within a test's patience.
   */
  private static KubernetesClient client(int port) {
    return client(port, http -> {});
  }

  /**
   * A client of the API server on {@code port} configured as the runtimes' here, its HTTP client
   * builder given to {@code http} first (to add an interceptor, say).
   */
  static KubernetesClient client(int port, Consumer<HttpClient.Builder> http) {
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("http://127.0.0.1:" + port)
            .withNamespace(NAMESPACE)
            .withRequestRetryBackoffLimit(0)
            .withWatchReconnectInterval(100)
            .withConnectionTimeout(2_000)
            .withRequestTimeout(5_000)
            .build();
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(new JdkHttpClientFactory())
        .withHttpClientBuilderConsumer(http)
        .build();
  }

  /** The API server's port, for a client of a test's own (see {@link #client(int, Consumer)}). */
  int apiServerPort() {
    return running().server().port();
  }

  KubeletSimulator kubelet() {
    return running().kubelet();
  }

  /** The API server, directly: what the kubelet and other installations use. */
  KubernetesClient client() {
    return running().direct();
  }

  /** A runtime of {@code installation} through the cuttable proxy, its informer synced. */
  KubernetesRuntime runtime(String installation) throws InterruptedException {
    return synced(KubernetesRuntime.start(running().proxied(), settings(installation)));
  }

  /** A runtime of {@code installation} through the proxy, not waiting for its informer. */
  KubernetesRuntime unsyncedRuntime(String installation) {
    KubernetesRuntime runtime =
        KubernetesRuntime.start(running().proxied(), settings(installation));
    synchronized (runtimes) {
      runtimes.add(runtime);
    }
    return runtime;
  }

  /** A runtime of {@code installation} on a direct connection, which {@link #cut} leaves alone. */
  KubernetesRuntime directRuntime(String installation) throws InterruptedException {
    return synced(KubernetesRuntime.start(running().direct(), settings(installation)));
  }

  /**
   * Agents at their pod IP and the template's port, as in a cluster; a NetworkPolicy for every pod
   * (the mock API server stores it, nothing enforces it), sessions of a tenant without network
   * getting no egress.
   */
  static KubernetesRuntimeSettings settings(String installation) {
    return KubernetesRuntimeSettings.of(installation, TEMPLATE, TOKENS)
        .withNetworkPolicy(POLICY, session -> NetworkAccess.EGRESS);
  }

  private KubernetesRuntime synced(KubernetesRuntime runtime) throws InterruptedException {
    synchronized (runtimes) {
      runtimes.add(runtime);
    }
    if (!runtime.awaitSynced(Duration.ofSeconds(10))) {
      throw new IllegalStateException("the runtime's informer did not sync within 10 s");
    }
    return runtime;
  }

  /** Closes {@code runtime} with the others, in {@link #closeRuntimes}. */
  void track(KubernetesRuntime runtime) {
    synchronized (runtimes) {
      runtimes.add(runtime);
    }
  }

  /** Resets and refuses the proxied runtimes' connections to the API server until restored. */
  void cut() {
    running().proxy().cut();
  }

  void restore() {
    running().proxy().restore();
  }

  /** Closes the runtimes made here; the cluster stays. */
  void closeRuntimes() {
    synchronized (runtimes) {
      runtimes.forEach(KubernetesRuntime::close);
      runtimes.clear();
    }
  }
}
