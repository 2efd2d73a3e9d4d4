// Creates 1,000 sessions (BENCH_SESSIONS) through POST /api/v1/sessions on a simulated cluster and
// reports the create's wall time (p50, p99, max; the route answers once the session is active) and
// the Kubernetes API-server writes the control plane made per session, by verb and resource. The
// control plane is a real BerthServer (SQLite, --runtime kubernetes) in this JVM; the API server
// is fabric8's mock server in CRUD mode, which records every request it gets; the nodes are a light
// kubelet of this file, which starts each pod's `berth agent` in this JVM (SessionAgent on the
// pod's own 127.x.y.z and port 8090, a real shell), writes the pod Running and, on the pod's
// deletion, stops the agent and drops its finalizer. At most BENCH_ALIVE (50) sessions live at
// once: older ones are deleted through the API as the bench goes, so every session's writes are
// counted from its create to its pods' removal. Baselines measured in the same run, interleaved
// with the creates, on the same API server and kubelet: a bare pod create (one POST), and a
// session pod made by hand (its Secret and pod created, then watched until Running). Writes are
// told apart by User-Agent: the bench's own clients send their own. Run with `make bench`.
//
// The bench counts each request inside the mock server's dispatcher, before the CRUD dispatcher
// handles it, and reads its body without consuming it: RecordedRequest.getUtf8Body() empties the
// body's buffer, and an earlier version of this bench that read bodies from the server's request
// queue, on its own thread, raced the dispatcher and left it about one POST in three with no body
// to store (400, and a reconcile retry for the session).
//
// Measured on two shared cores, December 2026, 1,000 sessions: create p50 567 ms, p99 1,475 ms,
// 1.19x (p50) and 1.63x (p99) a session pod made by hand; 9.0 API-server writes per session (a
// Secret, a NetworkPolicy and a pod created, the first two given the pod as owner; on removal the
// pod's delete, asked again by the pass that finds it still terminating, its Secret's and its
// policy's). The run takes about 27 minutes; BENCH_SESSIONS=60 about 2.

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.http.AgentHttpServer;
import dev.berth.agent.node.SessionAgent;
import dev.berth.core.session.SessionId;
import dev.berth.server.ArchiveChoice;
import dev.berth.server.BerthServer;
import dev.berth.server.RuntimeChoice;
import dev.berth.server.ServerConfig;
import dev.berth.server.StoreChoice;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class KubernetesCreateBench {
  private static final String NAMESPACE = "berth";
  private static final String BENCH_AGENT = "berth-bench";
  private static final Pattern ID = Pattern.compile("\"id\":\"([0-9a-f]{32})\"");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
  private static int warmup;
  private static String base;
  private static String token;

  public static void main(String[] args) throws Exception {
    int sessions = setting("BENCH_SESSIONS", 1000);
    int alive = setting("BENCH_ALIVE", 50);
    int baselineEvery = setting("BENCH_BASELINE_EVERY", 5);
    warmup = setting("BENCH_WARMUP", 20);
    Path dir = Files.createTempDirectory("berth-bench-");
    Path log = dir.resolve("server.log");
    quietLogging(dir, log);
    // The mock server logs every request it answers through java.util.logging.
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);

    Requests requests = new Requests();
    KubernetesMockServer apiServer =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher() {
              @Override
              public MockResponse dispatch(RecordedRequest request) {
                requests.record(request);
                return super.dispatch(request);
              }
            },
            false);
    apiServer.init();
    // The server also queues every request it answered for takeRequest; counted in the dispatcher
    // already, they are dropped here so that a thousand sessions' requests do not pile up.
    Thread.ofPlatform().daemon().name("api-requests").start(() -> discardRequests(apiServer));
    String master = "http://127.0.0.1:" + apiServer.getPort();
    // The control plane's client comes from Config.autoConfigure, as in a real deployment; these
    // point it at the mock server and keep it from any kubeconfig or service account of this host.
    System.setProperty("kubernetes.master", master);
    System.setProperty("kubernetes.auth.tryKubeConfig", "false");
    System.setProperty("kubernetes.auth.tryServiceAccount", "false");
    KubernetesClient kubeletClient = client(master, BENCH_AGENT + "-kubelet");
    KubernetesClient byHand = client(master, BENCH_AGENT + "-baseline");
    BenchKubelet kubelet = new BenchKubelet(kubeletClient, dir.resolve("pods"));
    Watch handMadeWatch = watchHandMade(byHand);

    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    BerthServer server =
        new BerthServer(
                new ServerConfig("127.0.0.1", 0, dir.resolve("server"))
                    .withBackends(
                        new ServerConfig.Backends(
                            new StoreChoice.Sqlite(),
                            new ArchiveChoice.Filesystem(),
                            Optional.empty(),
                            new RuntimeChoice.Kubernetes(
                                Optional.of(NAMESPACE),
                                "berth-agent:bench",
                                Optional.empty(),
                                key))))
            .start();
    boolean ok = false;
    try {
      base = "http://127.0.0.1:" + server.port();
      token = server.adminToken();
      run(sessions, alive, baselineEvery, requests, kubelet, byHand);
      ok = true;
    } finally {
      server.close();
      kubelet.close();
      handMadeWatch.close();
      requests.close();
      byHand.close();
      kubeletClient.close();
      apiServer.destroy();
      summarizeLog(log);
      if (ok && System.getenv("BENCH_KEEP") == null) {
        // Nothing of a run stays behind in /tmp (best effort: rm says what it could not remove).
        new ProcessBuilder("rm", "-rf", dir.toString()).inheritIO().start().waitFor();
      } else {
        System.out.println("kept for a look: " + dir);
      }
    }
  }

  private static void run(
      int sessions,
      int alive,
      int baselineEvery,
      Requests requests,
      BenchKubelet kubelet,
      KubernetesClient byHand)
      throws Exception {
    // Warm-up: the same creates, deleted and settled before anything is counted.
    Deque<String> live = new ArrayDeque<>();
    for (int i = 0; i < warmup; i++) {
      live.add(create("warmup-" + i));
      baseline(byHand, kubelet);
    }
    while (!live.isEmpty()) {
      delete(live.poll());
    }
    awaitEmpty(byHand);
    requests.reset();
    kubelet.starts.clear();

    long[] creates = new long[sessions];
    List<Long> barePod = new ArrayList<>();
    List<Long> handMade = new ArrayList<>();
    long began = System.nanoTime();
    for (int i = 0; i < sessions; i++) {
      long start = System.nanoTime();
      String id = create("bench-" + i);
      creates[i] = System.nanoTime() - start;
      requests.created(id, start, start + creates[i]);
      live.add(id);
      if (live.size() > alive) {
        String oldest = live.poll();
        requests.deleting(oldest);
        delete(oldest);
      }
      if (i % baselineEvery == 0) {
        long[] times = baseline(byHand, kubelet);
        barePod.add(times[0]);
        handMade.add(times[1]);
      }
      if ((i + 1) % 100 == 0) {
        System.out.printf(
            "  %d created in %d s%n", i + 1, (System.nanoTime() - began) / 1_000_000_000);
      }
    }
    while (!live.isEmpty()) {
      String id = live.poll();
      requests.deleting(id);
      delete(id);
    }
    awaitEmpty(byHand);
    // The removals' last writes (finalizer gone, objects deleted) are in once nothing is left;
    // a moment more for the control plane's last passes over the removed runtimes.
    Thread.sleep(3000);
    requests.stop();

    double[] create = millis(creates);
    double[] bare = millis(barePod.stream().mapToLong(Long::longValue).toArray());
    double[] hand = millis(handMade.stream().mapToLong(Long::longValue).toArray());
    double[] podStart = millis(kubelet.starts.stream().mapToLong(Long::longValue).toArray());
    System.out.printf(
        "%,d sessions created through POST /api/v1/sessions (after %d warm-up creates), one at"
            + " a time, at most %d alive: older ones deleted through the API as the bench went%n",
        sessions, warmup, alive);
    System.out.printf("  create (POST until active)        %s%n", stats(create));
    System.out.printf(
        "  of which the bench kubelet's pod start (ADDED seen to Running written; the agent and"
            + " its shell started in this JVM):%n                                    %s%n",
        stats(podStart));
    System.out.printf(
        "baselines, same run, same API server and kubelet (%d samples, one per %d creates):%n",
        bare.length, baselineEvery);
    System.out.printf("  bare pod create (one POST)        %s%n", stats(bare));
    System.out.printf("  by hand: Secret + pod, watched until Running%n");
    System.out.printf("                                    %s%n", stats(hand));
    System.out.printf(
        "ratios: create / bare pod create p50 %.0fx, p99 %.0fx; create / by hand p50 %.2fx, p99"
            + " %.2fx%n",
        pct(create, 50) / pct(bare, 50),
        pct(create, 99) / pct(bare, 99),
        pct(create, 50) / pct(hand, 50),
        pct(create, 99) / pct(hand, 99));
    requests.report(sessions);
  }

  // --- the bench's baselines -----------------------------------------------------------------

  /**
   * A session's pod made by hand, as Berth's runtime makes it minus the NetworkPolicy and owner
   * references: its token Secret, then the pod (the same container arguments, so the kubelet starts
   * the same agent), then watched until Running and ready. Returns the pod's POST alone and the
   * whole; the pod and Secret are then deleted (not timed).
   */
  private static long[] baseline(KubernetesClient client, BenchKubelet kubelet) throws Exception {
    String session = SessionId.generate(new SecureRandom()).value();
    String name = "hand-" + session + "-1";
    String tokenValue = SessionId.generate(new SecureRandom()).value();
    Secret secret =
        new SecretBuilder()
            .withNewMetadata()
            .withName(name + "-token")
            .endMetadata()
            .addToStringData("token", tokenValue)
            .build();
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(Map.of("bench", "by-hand"))
            .endMetadata()
            .withNewSpec()
            .withRestartPolicy("OnFailure")
            .addNewContainer()
            .withName("agent")
            .withImage("berth-agent:bench")
            .withCommand("berth")
            .withArgs(
                "agent",
                "--session",
                session,
                "--incarnation",
                "1",
                "--installation",
                "by-hand",
                "--state-dir",
                "/var/lib/berth",
                "--listen",
                "0.0.0.0:8090")
            .addNewEnv()
            .withName("BERTH_AGENT_TOKEN")
            .withNewValueFrom()
            .withNewSecretKeyRef()
            .withName(name + "-token")
            .withKey("token")
            .endSecretKeyRef()
            .endValueFrom()
            .endEnv()
            .endContainer()
            .endSpec()
            .build();
    CompletableFuture<Void> ready = new CompletableFuture<>();
    handMade.put(name, ready);
    long start = System.nanoTime();
    client.secrets().inNamespace(NAMESPACE).resource(secret).create();
    long podStart = System.nanoTime();
    client.pods().inNamespace(NAMESPACE).resource(pod).create();
    long bare = System.nanoTime() - podStart;
    ready.get(60, TimeUnit.SECONDS);
    long whole = System.nanoTime() - start;
    handMade.remove(name);
    client.pods().inNamespace(NAMESPACE).withName(name).delete();
    client.secrets().inNamespace(NAMESPACE).withName(name + "-token").delete();
    return new long[] {bare, whole};
  }

  /** The hand-made pods not Running yet, completed by the one watch the baseline keeps open. */
  private static final Map<String, CompletableFuture<Void>> handMade = new ConcurrentHashMap<>();

  /**
   * One watch for every hand-made pod, as a client waiting on many pods keeps, rather than one per
   * pod: fabric8's mock server blocks its event loop for seconds whenever a watch is closed.
   */
  private static Watch watchHandMade(KubernetesClient client) {
    return client
        .pods()
        .inNamespace(NAMESPACE)
        .withLabel("bench", "by-hand")
        .watch(
            new Watcher<Pod>() {
              @Override
              public void eventReceived(Action action, Pod pod) {
                CompletableFuture<Void> waiting = handMade.get(pod.getMetadata().getName());
                if (waiting != null && running(pod)) {
                  waiting.complete(null);
                }
              }

              @Override
              public void onClose(WatcherException cause) {
                System.err.println("the baseline's watch closed: " + cause);
              }
            });
  }

  private static boolean running(Pod pod) {
    return pod != null
        && pod.getStatus() != null
        && "Running".equals(pod.getStatus().getPhase())
        && pod.getStatus().getContainerStatuses().stream().allMatch(c -> c.getReady());
  }

  /** Waits until the namespace holds no pod, Secret or NetworkPolicy. */
  private static void awaitEmpty(KubernetesClient client) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (System.nanoTime() < deadline) {
      int left =
          client.pods().inNamespace(NAMESPACE).list().getItems().size()
              + client.secrets().inNamespace(NAMESPACE).list().getItems().size()
              + client
                  .network()
                  .v1()
                  .networkPolicies()
                  .inNamespace(NAMESPACE)
                  .list()
                  .getItems()
                  .size();
      if (left == 0) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("the namespace still holds objects after 300 s");
  }

  // --- the public API ------------------------------------------------------------------------

  private static String create(String name) {
    HttpResponse<String> answer =
        send(
            HttpRequest.newBuilder(URI.create(base + "/api/v1/sessions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"" + name + "\"}")));
    Matcher id = ID.matcher(answer.body());
    if (answer.statusCode() / 100 != 2
        || !answer.body().contains("\"state\":\"active\"")
        || !id.find()) {
      throw new IllegalStateException(
          "create " + name + " answered " + answer.statusCode() + ": " + answer.body());
    }
    return id.group(1);
  }

  private static void delete(String id) {
    HttpResponse<String> answer =
        send(HttpRequest.newBuilder(URI.create(base + "/api/v1/sessions/" + id)).DELETE());
    if (answer.statusCode() != 204) {
      throw new IllegalStateException(
          "delete " + id + " answered " + answer.statusCode() + ": " + answer.body());
    }
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return HTTP.send(
          request
              .header("Authorization", "Bearer " + token)
              .timeout(Duration.ofSeconds(120))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException("the server did not answer", e);
    }
  }

  // --- plumbing ------------------------------------------------------------------------------

  private static KubernetesClient client(String master, String userAgent) {
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(master)
            .withNamespace(NAMESPACE)
            .withUserAgent(userAgent)
            .withRequestRetryBackoffLimit(2)
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private static void discardRequests(KubernetesMockServer apiServer) {
    while (true) {
      try {
        apiServer.takeRequest();
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static int setting(String name, int fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : Integer.parseInt(value.strip());
  }

  /**
   * The server's and agents' log goes to a file: a thousand sessions' INFO lines would drown the
   * result.
   */
  private static void quietLogging(Path dir, Path log) throws Exception {
    Path config = dir.resolve("logback.xml");
    Files.writeString(
        config,
        """
        <configuration>
          <appender name="FILE" class="ch.qos.logback.core.FileAppender">
            <file>%s</file>
            <encoder><pattern>%%d{HH:mm:ss.SSS} %%-5level [%%thread] %%logger{36} - %%msg%%n</pattern></encoder>
          </appender>
          <logger name="org.eclipse.jetty" level="WARN"/>
          <root level="INFO"><appender-ref ref="FILE"/></root>
        </configuration>
        """
            .formatted(log));
    System.setProperty("logback.configurationFile", config.toString());
  }

  /** How many warnings and errors the run logged, and the first few kinds. */
  private static void summarizeLog(Path log) throws Exception {
    if (!Files.exists(log)) {
      return;
    }
    Map<String, Integer> kinds = new TreeMap<>();
    for (String line : Files.readAllLines(log)) {
      Matcher m =
          Pattern.compile("^\\S+ (WARN|ERROR) +\\[[^\\]]*\\] (\\S+) - (.{0,100})").matcher(line);
      if (m.find()) {
        String kind =
            m.group(1) + " " + m.group(2) + " - " + m.group(3).replaceAll("[0-9a-f]{32}", "<id>");
        kinds.merge(kind, 1, Integer::sum);
      }
    }
    int total = kinds.values().stream().mapToInt(Integer::intValue).sum();
    System.out.printf("log: %d warnings and errors%n", total);
    kinds.entrySet().stream()
        .sorted((a, b) -> b.getValue() - a.getValue())
        .limit(8)
        .forEach(e -> System.out.printf("  %5d  %s%n", e.getValue(), e.getKey()));
  }

  private static double[] millis(long[] nanos) {
    double[] ms = new double[nanos.length];
    for (int i = 0; i < nanos.length; i++) {
      ms[i] = nanos[i] / 1e6;
    }
    Arrays.sort(ms);
    return ms;
  }

  /** The nearest-rank percentile of sorted values. */
  private static double pct(double[] sorted, double p) {
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static String stats(double[] sorted) {
    return String.format(
        "p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms",
        pct(sorted, 50), pct(sorted, 99), sorted[sorted.length - 1]);
  }

  /**
   * Every request the API server gets, counted in its dispatcher as it comes: the control plane's
   * (any User-Agent but the bench's own) counted by verb and resource, and its writes to a session's
   * objects (named {@code berth-<session>-<n>}) counted against that session, as made during its
   * create, between its create and its deletion, or after its deletion was asked.
   */
  static final class Requests implements AutoCloseable {
    private static final Pattern PATH =
        Pattern.compile(
            "^/apis?/(?:[^/]+/)?v1/namespaces/[^/]+/([^/?]+)(?:/([^/?]+))?(?:/([^/?]+))?");
    private static final Pattern NAME = Pattern.compile("berth-([0-9a-f]{32})-\\d+");

    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    private final Map<String, long[]> created = new ConcurrentHashMap<>();
    private final Map<String, Long> deleting = new ConcurrentHashMap<>();
    private final AtomicLong duringCreate = new AtomicLong();
    private final AtomicLong betweenCreateAndDelete = new AtomicLong();
    private final AtomicLong afterDelete = new AtomicLong();
    private final AtomicLong unattributed = new AtomicLong();
    private final AtomicLong emptyBodies = new AtomicLong();
    private final Map<String, AtomicInteger> perCreate = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> agents = new ConcurrentHashMap<>();
    private volatile boolean counting = true;

    void created(String session, long start, long end) {
      created.put(session, new long[] {start, end});
    }

    void deleting(String session) {
      deleting.put(session, System.nanoTime());
    }

    /** Forgets what was counted so far (the warm-up's). */
    void reset() {
      counting = false;
      counts.clear();
      created.clear();
      deleting.clear();
      perCreate.clear();
      agents.clear();
      duringCreate.set(0);
      betweenCreateAndDelete.set(0);
      afterDelete.set(0);
      unattributed.set(0);
      emptyBodies.set(0);
      counting = true;
    }

    /** Called by the dispatcher before it handles {@code request}, on the server's event loop. */
    void record(RecordedRequest request) {
      if (counting) {
        count(request, System.nanoTime());
      }
    }

    /** The body as sent, left in place for the dispatcher (getUtf8Body would empty it). */
    private static String body(RecordedRequest request) {
      return request.getBody() == null
          ? ""
          : new String(request.getBody().getBytes(), StandardCharsets.UTF_8);
    }

    private void count(RecordedRequest request, long at) {
      String agent = String.valueOf(request.getHeader("User-Agent"));
      agents.computeIfAbsent(agent, a -> new AtomicInteger()).incrementAndGet();
      if (agent.startsWith(BENCH_AGENT)) {
        return;
      }
      String method = request.getMethod();
      String path = request.getPath();
      boolean watch = path.contains("watch=true");
      Matcher m = PATH.matcher(path);
      String resource = m.find() ? m.group(1) + (m.group(3) != null ? "/" + m.group(3) : "") : path;
      String verb =
          method.equals("GET") ? (watch ? "WATCH" : (m.group(2) == null ? "LIST" : "GET")) : method;
      counts.computeIfAbsent(verb + " " + resource, k -> new AtomicInteger()).incrementAndGet();
      if (method.equals("GET")) {
        return;
      }
      Matcher named = NAME.matcher(path);
      if (!named.find()) {
        String body = body(request);
        named = NAME.matcher(body);
        if (!named.find()) {
          unattributed.incrementAndGet();
          if (body.isEmpty()) {
            emptyBodies.incrementAndGet();
          }
          return;
        }
      }
      String session = named.group(1);
      long[] create = created.get(session);
      Long delete = deleting.get(session);
      if (delete != null && at >= delete) {
        afterDelete.incrementAndGet();
      } else if (create == null || at <= create[1]) {
        // Before the POST's answer (the record of its end comes only after).
        duringCreate.incrementAndGet();
        perCreate.computeIfAbsent(session, k -> new AtomicInteger()).incrementAndGet();
      } else {
        betweenCreateAndDelete.incrementAndGet();
      }
    }

    /** Counts no more: what comes after the last removal is not a session's. */
    void stop() {
      counting = false;
    }

    void report(int sessions) {
      long writes = duringCreate.get() + betweenCreateAndDelete.get() + afterDelete.get();
      System.out.printf(
          "API-server writes by the control plane: %.2f per session (%,d for %,d sessions):"
              + " %.2f during the create, %.2f between create and delete, %.2f after the delete;"
              + " %d not naming a session, of which %d came with an empty body%n",
          (double) (writes + unattributed.get()) / sessions,
          writes + unattributed.get(),
          sessions,
          (double) duringCreate.get() / sessions,
          (double) betweenCreateAndDelete.get() / sessions,
          (double) afterDelete.get() / sessions,
          unattributed.get(),
          emptyBodies.get());
      int[] each = perCreate.values().stream().mapToInt(AtomicInteger::get).sorted().toArray();
      if (each.length > 0) {
        System.out.printf(
            "  writes during one create: min %d, median %d, max %d%n",
            each[0], each[each.length / 2], each[each.length - 1]);
      }
      System.out.println("  by verb and resource (per session; reads too, for comparison):");
      counts.entrySet().stream()
          .sorted(
              (a, b) -> {
                boolean readA =
                    a.getKey().startsWith("GET")
                        || a.getKey().startsWith("LIST")
                        || a.getKey().startsWith("WATCH");
                boolean readB =
                    b.getKey().startsWith("GET")
                        || b.getKey().startsWith("LIST")
                        || b.getKey().startsWith("WATCH");
                return readA != readB
                    ? Boolean.compare(readA, readB)
                    : a.getKey().compareTo(b.getKey());
              })
          .forEach(
              e ->
                  System.out.printf(
                      "    %-34s %7.2f  (%,d)%n",
                      e.getKey(), (double) e.getValue().get() / sessions, e.getValue().get()));
      System.out.print("  requests by User-Agent:");
      agents.forEach((agent, n) -> System.out.printf(" %s %,d;", agent, n.get()));
      System.out.println();
    }

    @Override
    public void close() {
      stop();
    }
  }

  /**
   * A kubelet (and scheduler) for the mock API server, light enough for a thousand pods: each new
   * pod's agent is started in this JVM (SessionAgent, what `berth agent` runs) with the pod's
   * arguments and the token of the Secret its env names, on a loopback address of the pod's own and
   * the template's port; then the pod is written Running, with that IP, its container ready. A
   * finalizer of its own keeps a deleted pod terminating until its agent is closed, as on a node.
   */
  static final class BenchKubelet implements AutoCloseable {
    private static final String FINALIZER = "bench.berth.dev/kubelet";
    private static final AtomicInteger NEXT_IP =
        new AtomicInteger(new SecureRandom().nextInt(1 << 16));

    final List<Long> starts = java.util.Collections.synchronizedList(new ArrayList<>());
    private final KubernetesClient client;
    private final Path root;
    private final Map<String, BenchPod> pods = new ConcurrentHashMap<>();
    private final ExecutorService work = Executors.newCachedThreadPool();
    private final Watch watch;

    BenchKubelet(KubernetesClient client, Path root) {
      this.client = client;
      this.root = root;
      this.watch =
          client
              .pods()
              .inNamespace(NAMESPACE)
              .watch(
                  new Watcher<Pod>() {
                    @Override
                    public void eventReceived(Action action, Pod pod) {
                      String name = pod.getMetadata().getName();
                      long seen = System.nanoTime();
                      switch (action) {
                        case ADDED, MODIFIED -> {
                          BenchPod p = pods.computeIfAbsent(name, BenchPod::new);
                          if (pod.getMetadata().getDeletionTimestamp() != null) {
                            work.execute(p::terminate);
                          } else {
                            work.execute(() -> p.start(seen));
                          }
                        }
                        case DELETED -> {
                          BenchPod gone = pods.remove(name);
                          if (gone != null) {
                            work.execute(gone::stop);
                          }
                        }
                        default -> {}
                      }
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                      System.err.println("the bench kubelet lost its watch: " + cause);
                    }
                  });
    }

    /** 127.64.0.1 and up: an address no other pod of this run has. */
    private static String nextIp() {
      int n = NEXT_IP.getAndIncrement() % (190 * 256 * 254);
      return "127." + (64 + n / (256 * 254)) + "." + (n / 254 % 256) + "." + (1 + n % 254);
    }

    @Override
    public void close() {
      watch.close();
      pods.values().forEach(BenchPod::stop);
      work.shutdownNow();
    }

    private PodResource pod(String name) {
      return client.pods().inNamespace(NAMESPACE).withName(name);
    }

    /** One pod on the node; its methods run one at a time, as a kubelet's pod worker. */
    private final class BenchPod {
      private final String name;
      private final String ip = nextIp();
      private boolean started;
      private boolean terminating;
      private SessionAgent agent;

      BenchPod(String name) {
        this.name = name;
      }

      synchronized void start(long seen) {
        if (started || terminating) {
          return;
        }
        started = true;
        try {
          pod(name)
              .edit(
                  p -> {
                    p.getMetadata().getFinalizers().add(FINALIZER);
                    return p;
                  });
          Pod pod = pod(name).get();
          if (pod == null) {
            return;
          }
          List<String> args = pod.getSpec().getContainers().getFirst().getArgs();
          String listen = option(args, "--listen");
          agent =
              SessionAgent.start(
                  new SessionId(option(args, "--session")),
                  Long.parseLong(option(args, "--incarnation")),
                  option(args, "--installation"),
                  args.contains("--await-restore"),
                  HostConfig.defaults(root.resolve(name), token(pod)),
                  new AgentHttpServer.Settings(
                      ip,
                      Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1)),
                      Duration.ofSeconds(15),
                      Duration.ofMillis(100)));
          pod(name)
              .editStatus(
                  p ->
                      new PodBuilder(p)
                          .withStatus(
                              new PodStatusBuilder()
                                  .withPhase("Running")
                                  .withPodIP(ip)
                                  .withHostIP("127.0.0.1")
                                  .addNewCondition()
                                  .withType("Ready")
                                  .withStatus("True")
                                  .endCondition()
                                  .addNewContainerStatus()
                                  .withName("agent")
                                  .withImage("berth-agent:bench")
                                  .withReady(true)
                                  .withRestartCount(0)
                                  .withNewState()
                                  .withNewRunning()
                                  .withStartedAt(Instant.now().toString())
                                  .endRunning()
                                  .endState()
                                  .endContainerStatus()
                                  .build())
                          .build());
          if (name.startsWith("berth-")) {
            starts.add(System.nanoTime() - seen);
          }
        } catch (KubernetesClientException e) {
          if (e.getCode() != 404) {
            System.err.println("bench kubelet: pod " + name + ": " + e.getMessage());
          }
          stop();
        } catch (RuntimeException e) {
          System.err.println("bench kubelet: pod " + name + " did not start: " + e);
          stop();
        }
      }

      synchronized void terminate() {
        if (terminating) {
          return;
        }
        terminating = true;
        stop();
        try {
          pod(name)
              .edit(
                  p -> {
                    p.getMetadata().getFinalizers().remove(FINALIZER);
                    return p;
                  });
        } catch (KubernetesClientException e) {
          if (e.getCode() != 404) {
            System.err.println("bench kubelet: pod " + name + ": " + e.getMessage());
          }
        }
      }

      synchronized void stop() {
        if (agent != null) {
          agent.close();
          agent = null;
        }
      }

      /** The token the pod's env takes from its Secret, as the kubelet resolves it. */
      private String token(Pod pod) {
        EnvVar env =
            pod.getSpec().getContainers().getFirst().getEnv().stream()
                .filter(e -> e.getName().equals("BERTH_AGENT_TOKEN"))
                .findFirst()
                .orElseThrow();
        SecretKeySelector ref = env.getValueFrom().getSecretKeyRef();
        Secret secret = client.secrets().inNamespace(NAMESPACE).withName(ref.getName()).get();
        if (secret == null) {
          throw new IllegalStateException("pod " + name + " refers to a missing Secret");
        }
        return Optional.ofNullable(secret.getData())
            .map(d -> d.get(ref.getKey()))
            .map(v -> new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8))
            .orElseGet(() -> secret.getStringData().get(ref.getKey()));
      }
    }

    private static String option(List<String> args, String option) {
      return args.get(args.indexOf(option) + 1);
    }
  }
}
