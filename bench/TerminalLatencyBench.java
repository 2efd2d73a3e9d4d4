// What a terminal user feels, side by side in one run against the same machine's baselines:
// write->echo (a command typed, its output back) through a raw PTY, through the node's own input
// route and SSE stream, through the control plane's POST write + SSE stream, and through its
// WebSocket attach; create->first output for a raw PTY, tmux and a Berth session; and 20 clients
// doing write+read on their own sessions. Everything but create->first output is measured after
// the load has warmed all three JVMs to a steady rate. Medians and ratios are printed; nothing
// passes or fails. Run with `make bench` (it starts its own server and node on a temporary data directory).

import com.pty4j.PtyProcess;
import com.pty4j.PtyProcessBuilder;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;

public class TerminalLatencyBench {
  private static final int ROUNDS = 60;
  private static final int WARMUP = 10;
  private static final int CLIENTS = 20;
  private static final Duration LOAD = Duration.ofSeconds(8);
  private static final int MAX_WARMUP_PERIODS = 15;
  private static final Pattern PAYLOAD = Pattern.compile("\"payloadBase64\":\"([^\"]*)\"");
  // HTTP/1.1 as browsers and curl talk to Berth (no h2c upgrade offered on every request).
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final CloseableHttpClient BLOCKING =
      HttpClients.custom()
          .setConnectionManager(
              PoolingHttpClientConnectionManagerBuilder.create()
                  .setMaxConnPerRoute(2 * CLIENTS)
                  .setMaxConnTotal(4 * CLIENTS)
                  .build())
          .disableAutomaticRetries()
          .build();

  private static String base;
  private static String token;

  public static void main(String[] args) throws Exception {
    Path data = Files.createTempDirectory("berth-bench-");
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    base = "http://127.0.0.1:" + port;
    Process server =
        new ProcessBuilder(
                "bin/berth", "server", "--listen", "127.0.0.1:" + port, "--data-dir", data.toString())
            .redirectErrorStream(true)
            .redirectOutput(data.resolve("server.log").toFile())
            .start();
    try {
      awaitHealthy();
      token = Files.readString(data.resolve("admin.token")).strip();
      run(data);
    } finally {
      deleteSessions();
      server.destroy();
      server.waitFor(20, TimeUnit.SECONDS);
      killNode(data);
      // Nothing of a run stays behind in /tmp (best effort: rm says what it could not remove).
      new ProcessBuilder("rm", "-rf", data.toString()).inheritIO().start().waitFor();
    }
  }

  private static void run(Path data) throws Exception {
    double ptyStart = median(rawPtyStart());
    double tmuxStart = median(tmuxStart());
    double berthStart = median(berthStart());

    String id = create("bench");
    List<String> sessions = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      sessions.add(create("load-" + i));
    }
    Client writeRead =
        client -> {
          String sid = sessions.get(client);
          post("/api/v1/sessions/" + sid + "/write", "{\"payload\":\"true\\n\"}");
          post("/api/v1/sessions/" + sid + "/read", "{\"offset\":" + Long.MAX_VALUE + "}");
        };
    warmUp(writeRead);

    Map<String, String> node = node(data);
    double nodeAnswer = median(nodeInputAnswers(node, id));
    double writeAnswer = median(writeAnswers(id));
    System.out.printf("a write's answer alone (one key, no echo awaited), median of %d:%n", ANSWERS);
    System.out.printf("  node input route              %7.2f ms%n", nodeAnswer);
    System.out.printf(
        "  control plane write           %7.2f ms  (+%.2f ms over the node's route)%n",
        writeAnswer, writeAnswer - nodeAnswer);

    double pty = median(rawPtyEcho());
    double nodeRoute = median(nodeEcho(node, id));
    double sse = median(controlPlaneEcho(id));
    double attach = median(attachEcho(id));
    System.out.printf("write->echo, median of %d:%n", ROUNDS);
    System.out.printf("  raw PTY                       %7.2f ms%n", pty);
    System.out.printf(
        "  node input + SSE              %7.2f ms  (%.1fx the PTY)%n", nodeRoute, nodeRoute / pty);
    System.out.printf(
        "  control plane write + SSE     %7.2f ms  (%.1fx the PTY; +%.2f ms over the node's route)%n",
        sse, sse / pty, sse - nodeRoute);
    System.out.printf(
        "  control plane attach (WS)     %7.2f ms  (%.1fx the PTY)%n", attach, attach / pty);

    System.out.printf("create->first output, median of 5 (measured before the warm-up):%n");
    System.out.printf("  raw PTY                       %7.1f ms%n", ptyStart);
    System.out.printf(
        "  tmux new-session              %7.1f ms  (%.1fx the PTY)%n",
        tmuxStart, tmuxStart / ptyStart);
    System.out.printf(
        "  Berth session                 %7.1f ms  (%.1fx the PTY, %.1fx tmux)%n",
        berthStart, berthStart / ptyStart, berthStart / tmuxStart);

    double healthz = throughput(CLIENTS, (client) -> get("/healthz"));
    double pairs = median(new double[] {load(CLIENTS, writeRead), load(CLIENTS, writeRead), load(CLIENTS, writeRead)});
    System.out.printf(
        "%d clients, median of three %d s periods: write+read %.0f req/s; /healthz %.0f req/s"
            + " (ratio %.2f)%n",
        CLIENTS, LOAD.toSeconds(), pairs * 2, healthz, pairs * 2 / healthz);
  }

  /**
   * Runs the write+read load until its rate stops rising. On two cores the C2 compiler of three
   * JVMs (this client, the server, the node) competes with the load for a minute or more; measured
   * before that, the rate says more about the JIT than about Berth (it rose from 450 to 2,000 req/s
   * over eight periods in one run). Steady: a period within 5% of the one before, twice in a row.
   */
  private static void warmUp(Client op) throws Exception {
    double before = 0;
    int steady = 0;
    int periods = 0;
    long start = System.nanoTime();
    while (steady < 2 && periods < MAX_WARMUP_PERIODS) {
      double rate = load(CLIENTS, op);
      steady = before > 0 && Math.abs(rate - before) <= 0.05 * before ? steady + 1 : 0;
      before = rate;
      periods++;
    }
    System.out.printf(
        "warm-up: %d load periods (%.0f s)%s, the last at %.0f write+read req/s%n",
        periods,
        (System.nanoTime() - start) / 1e9,
        steady < 2 ? ", stopped before the rate was steady" : "",
        before * 2);
  }

  // ---- write -> echo -------------------------------------------------------------------------

  /** Types {@code echo $((k+1))z} and waits for {@code (k+1)z}, which the typed text lacks. */
  private static double[] rounds(Consumer<String> type, BlockingQueue<String> output)
      throws Exception {
    double[] times = new double[ROUNDS];
    StringBuilder seen = new StringBuilder();
    for (int round = -WARMUP; round < ROUNDS; round++) {
      int k = 1000 + round + WARMUP;
      String expected = (k + 1) + "z";
      long start = System.nanoTime();
      type.accept("echo $((" + k + "+1))z\n");
      while (seen.indexOf(expected) < 0) {
        String chunk = output.poll(10, TimeUnit.SECONDS);
        if (chunk == null) {
          throw new IllegalStateException("no echo of " + expected + "; saw: " + seen);
        }
        seen.append(chunk);
      }
      if (round >= 0) {
        times[round] = (System.nanoTime() - start) / 1e6;
      }
      seen.setLength(0);
      output.clear();
      Thread.sleep(5);
    }
    return times;
  }

  private static double[] rawPtyEcho() throws Exception {
    PtyProcess bash = bash();
    BlockingQueue<String> output = new LinkedBlockingQueue<>();
    pump(bash.getInputStream(), output);
    OutputStream in = bash.getOutputStream();
    Thread.sleep(300);
    try {
      return rounds(
          text -> {
            try {
              in.write(text.getBytes(StandardCharsets.UTF_8));
              in.flush();
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          },
          output);
    } finally {
      bash.destroyForcibly();
    }
  }

  private static final int ANSWERS = 300;
  // The load's warm-up ran first (warmUp); these calls only settle the one session's own path.
  private static final int ANSWER_WARMUP = 1000;

  /** Times {@code type} answering, one key each, then clears the line the keys typed. */
  private static double[] answers(Consumer<String> type) {
    double[] ms = new double[ANSWERS];
    for (int i = -ANSWER_WARMUP; i < ANSWERS; i++) {
      long start = System.nanoTime();
      type.accept("x");
      if (i >= 0) {
        ms[i] = (System.nanoTime() - start) / 1e6;
      }
    }
    type.accept("\u0015");
    return ms;
  }

  private static double[] nodeInputAnswers(Map<String, String> node, String id) {
    String url = node.get("url") + "/v1/sessions/" + id + "/input";
    return answers(
        text ->
            send("POST", url, node.get("token"), "application/octet-stream", text));
  }

  private static double[] writeAnswers(String id) {
    return answers(
        text ->
            post(
                "/api/v1/sessions/" + id + "/write",
                "{\"payload\":\"" + text.replace("\u0015", "\\u0015") + "\"}"));
  }

  private static double[] nodeEcho(Map<String, String> node, String id) throws Exception {
    BlockingQueue<String> output = new LinkedBlockingQueue<>();
    String url = node.get("url") + "/v1/sessions/" + id;
    sse(url + "/stream?offset=" + end(id), node.get("token"), output);
    return rounds(
        text ->
            send("POST", url + "/input", node.get("token"), "application/octet-stream", text),
        output);
  }

  private static double[] controlPlaneEcho(String id) throws Exception {
    BlockingQueue<String> output = new LinkedBlockingQueue<>();
    sse(base + "/api/v1/sessions/" + id + "/stream?offset=" + end(id), token, output);
    return rounds(
        text ->
            post(
                "/api/v1/sessions/" + id + "/write",
                "{\"payload\":\"" + text.replace("\n", "\\n") + "\"}"),
        output);
  }

  private static double[] attachEcho(String id) throws Exception {
    BlockingQueue<String> output = new LinkedBlockingQueue<>();
    WebSocket socket =
        HTTP.newWebSocketBuilder()
            .header("Authorization", "Bearer " + token)
            .buildAsync(
                URI.create(
                    base.replace("http:", "ws:")
                        + "/api/v1/sessions/"
                        + id
                        + "/attach?offset="
                        + end(id)),
                new WebSocket.Listener() {
                  @Override
                  public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
                    byte[] bytes = new byte[data.remaining()];
                    data.get(bytes);
                    output.add(new String(bytes, StandardCharsets.UTF_8));
                    ws.request(1);
                    return null;
                  }
                })
            .get(10, TimeUnit.SECONDS);
    try {
      return rounds(
          text ->
              socket
                  .sendBinary(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), true)
                  .join(),
          output);
    } finally {
      socket.abort();
    }
  }

  // ---- create -> first output ----------------------------------------------------------------

  private static double[] rawPtyStart() throws Exception {
    double[] times = new double[5];
    for (int i = 0; i < times.length; i++) {
      long start = System.nanoTime();
      PtyProcess bash = bash();
      bash.getInputStream().read();
      times[i] = (System.nanoTime() - start) / 1e6;
      bash.destroyForcibly();
    }
    return times;
  }

  private static double[] tmuxStart() throws Exception {
    double[] times = new double[5];
    for (int i = 0; i < times.length; i++) {
      String socket = "berth-bench-" + i;
      long start = System.nanoTime();
      exec("tmux", "-L", socket, "new-session", "-d", "-x", "80", "-y", "24", "bash --norc -i");
      while (exec("tmux", "-L", socket, "capture-pane", "-p").strip().isEmpty()) {
        Thread.sleep(1);
      }
      times[i] = (System.nanoTime() - start) / 1e6;
      exec("tmux", "-L", socket, "kill-server");
    }
    return times;
  }

  private static double[] berthStart() throws Exception {
    double[] times = new double[5];
    for (int i = 0; i < times.length; i++) {
      long start = System.nanoTime();
      String id = create("start-" + i);
      while (end(id) == 0) {
        Thread.sleep(1);
      }
      times[i] = (System.nanoTime() - start) / 1e6;
      send("DELETE", base + "/api/v1/sessions/" + id, token, null, null);
      CREATED.remove(id);
    }
    return times;
  }

  // ---- load ----------------------------------------------------------------------------------

  private interface Client {
    void once(int client) throws Exception;
  }

  /**
   * Operations per second of {@code clients} threads, each calling {@code op} for LOAD, after as
   * long again of the same load unmeasured (the warm-up of both JVMs).
   */
  private static double throughput(int clients, Client op) throws Exception {
    load(clients, op);
    return load(clients, op);
  }

  private static double load(int clients, Client op) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    AtomicLong done = new AtomicLong();
    long until = System.nanoTime() + LOAD.toNanos();
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int client = c;
      all.add(
          CompletableFuture.runAsync(
              () -> {
                while (System.nanoTime() < until) {
                  try {
                    op.once(client);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                  done.incrementAndGet();
                }
              },
              pool));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    pool.shutdown();
    return done.get() / (double) LOAD.toSeconds();
  }

  // ---- plumbing ------------------------------------------------------------------------------

  private static PtyProcess bash() throws Exception {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("TERM", "xterm-256color");
    env.put("PS1", "$ ");
    return new PtyProcessBuilder(new String[] {"bash", "--norc", "-i"})
        .setEnvironment(env)
        .start();
  }

  private static void pump(InputStream in, BlockingQueue<String> output) {
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              byte[] buffer = new byte[8192];
              try {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  output.add(new String(buffer, 0, n, StandardCharsets.UTF_8));
                }
              } catch (Exception ended) {
                // the process is gone
              }
            });
  }

  private static void sse(String url, String bearer, BlockingQueue<String> output)
      throws Exception {
    HttpResponse<InputStream> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + bearer)
                .header("Accept", "text/event-stream")
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(url + " answered " + response.statusCode());
    }
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  Matcher m = PAYLOAD.matcher(line);
                  if (line.startsWith("data:") && m.find()) {
                    output.add(
                        new String(Base64.getDecoder().decode(m.group(1)), StandardCharsets.UTF_8));
                  }
                }
              } catch (Exception ended) {
                // the stream closed
              }
            });
  }

  private static final List<String> CREATED = new ArrayList<>();

  private static String create(String name) {
    String body = post("/api/v1/sessions", "{\"name\":\"" + name + "\"}");
    Matcher id = Pattern.compile("\"id\":\"([0-9a-f]{32})\"").matcher(body);
    if (!id.find()) {
      throw new IllegalStateException("create answered " + body);
    }
    CREATED.add(id.group(1));
    return id.group(1);
  }

  /** Deletes what the run created, so that their runtimes (and state disks) go with them. */
  private static void deleteSessions() {
    for (String id : CREATED) {
      try {
        send("DELETE", base + "/api/v1/sessions/" + id, token, null, null);
      } catch (RuntimeException e) {
        System.err.println("bench: could not delete session " + id + ": " + e.getMessage());
      }
    }
  }

  private static long end(String id) {
    String body = post("/api/v1/sessions/" + id + "/read", "{\"offset\":" + Long.MAX_VALUE + "}");
    Matcher next = Pattern.compile("\"nextOffset\":(\\d+)").matcher(body);
    if (!next.find()) {
      throw new IllegalStateException("read answered " + body);
    }
    return Long.parseLong(next.group(1));
  }

  private static String post(String path, String json) {
    return send("POST", base + path, token, "application/json", json);
  }

  private static String get(String path) {
    return send("GET", base + path, null, null, null);
  }

  /**
   * One request and its answer's body, on the blocking client: it costs the machine little, so that
   * the load measures the server rather than the client (the JDK client took half of the two cores
   * here at 20 clients). Every figure of a run, baseline and subject, goes through it.
   */
  private static String send(
      String method, String url, String bearer, String contentType, String body) {
    HttpUriRequestBase request = new HttpUriRequestBase(method, URI.create(url));
    if (bearer != null) {
      request.setHeader("Authorization", "Bearer " + bearer);
    }
    if (body != null) {
      request.setEntity(new StringEntity(body, ContentType.parse(contentType)));
    }
    try {
      return BLOCKING.execute(
          request,
          answer -> {
            String text =
                answer.getEntity() == null
                    ? ""
                    : EntityUtils.toString(answer.getEntity(), StandardCharsets.UTF_8);
            if (answer.getCode() >= 300) {
              throw new IllegalStateException(
                  url + " answered " + answer.getCode() + ": " + text);
            }
            return text;
          });
    } catch (Exception e) {
      throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
  }

  private static void awaitHealthy() throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < until) {
      try {
        get("/healthz");
        return;
      } catch (RuntimeException notYet) {
        Thread.sleep(200);
      }
    }
    throw new IllegalStateException("the server did not answer /healthz within 60 s");
  }

  /** The node the server started: its URL and token, from its discovery files. */
  private static Map<String, String> node(Path data) throws Exception {
    Path dir = data.resolve("node");
    String json = Files.readString(dir.resolve("node.json"));
    Matcher host = Pattern.compile("\"host\":\"([^\"]+)\"").matcher(json);
    Matcher port = Pattern.compile("\"port\":(\\d+)").matcher(json);
    if (!host.find() || !port.find()) {
      throw new IllegalStateException("unreadable node.json: " + json);
    }
    return Map.of(
        "url", "http://" + host.group(1) + ":" + port.group(1),
        "token", Files.readString(dir.resolve("node.token")).strip());
  }

  private static void killNode(Path data) {
    try {
      String json = Files.readString(data.resolve("node/node.json"));
      Matcher pid = Pattern.compile("\"pid\":(\\d+)").matcher(json);
      if (pid.find()) {
        ProcessHandle.of(Long.parseLong(pid.group(1))).ifPresent(ProcessHandle::destroy);
      }
    } catch (Exception noNode) {
      // nothing was started
    }
  }

  private static String exec(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
