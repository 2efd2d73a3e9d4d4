package dev.berth.agent.proxy;

import dev.berth.agent.proxy.gate.GateSettings;
import dev.berth.agent.proxy.gate.GatedRequests;
import dev.berth.agent.proxy.gate.Gatekeeper;
import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.VirtualThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One agent session's credential proxy: it alone holds the provider token, and forwards what the
 * session's CLI sends to the one upstream of its {@link ProviderProfile}.
 *
 * <p>The rules (the original platform's, with the departures named):
 *
 * <ul>
 *   <li>Request headers pass only if the profile's API allows them; trailers never. The proxy sets
 *       the token in the profile's {@link AuthHeader} ({@code x-api-key} for Anthropic's API,
 *       {@code Authorization: Bearer} for OpenAI's, unless the profile names another) and {@code
 *       Accept-Encoding: identity}. Ambient {@code HTTP(S)_PROXY} settings are ignored: the
 *       upstream is dialled directly.
 *   <li>{@code CONNECT} and {@code Upgrade} are refused with 405: no tunnels, no protocol switches.
 *   <li>An upstream body with a {@code Content-Encoding} other than identity is an error (502): it
 *       could not be redacted.
 *   <li>A request body goes upstream with a {@code Content-Length}, as some providers require: one
 *       the client declared is streamed; one sent chunked is read first. Past 64 MiB, declared or
 *       read, it is refused (413).
 *   <li>An answer is streamed, redacted as it comes ({@link AnswerRelay}: an event stream per
 *       content block, then every body as raw text with a held-back tail), and cut short past 64
 *       MiB raw; {@code text/event-stream} is flushed after every chunk. Response headers are
 *       redacted too. At most {@link #MAX_IN_FLIGHT} exchanges run at once (one more waits, then
 *       gets 503). This departs from the original, which buffered answers whole: the proxy runs
 *       with a small heap ({@code -Xmx64m}), so a session must not make it hold 64 MiB per answer.
 *   <li>With an approval gate (policy {@code external} or {@code all}), only the model calls go
 *       upstream ({@code POST /v1/messages}, {@code /v1/messages/count_tokens}, {@code
 *       /v1/responses}, {@code /v1/chat/completions}; {@code GET /v1/models}), anything else gets
 *       404; and a model call's body is held whole (1 MiB in memory, the rest spooled) and read
 *       with a streaming parser before it is sent: one that declares a tool the provider runs
 *       itself ({@code web_fetch_*}, {@code mcp_servers}, Responses {@code web_search}, {@code
 *       mcp}...) gets 400, since such a tool never comes back as a call the gate could hold ({@link
 *       GatedRequests}).
 *   <li>An upstream that cannot be reached answers 502 {@code credential proxy upstream
 *       unavailable}. {@code GET /healthz} answers without contacting the upstream, and so does
 *       {@code GET /berth/approval-markers/<id>}: the approval markers the gate wrote under that id
 *       ({@link dev.berth.agent.proxy.gate.MarkerRecord}), which the node confirms a marker line
 *       against before its transcript records it.
 * </ul>
 *
 * <p>It listens where the session's network reaches it and nothing else does: a Unix socket outside
 * the sandbox, forwarded to the session's loopback, bound under a name that says nothing of the
 * host ({@link SocketAlias}); tests may give it a loopback TCP port.
 *
 * <p><b>One per session, in a process of its own.</b> Each agent session gets its own proxy (its
 * own server, socket and profile), run as {@code berth proxy} ({@link ProxyMain}): by the node as a
 * child per session ({@link ProxyProcess}, the launch on its stdin), in a pod as the {@code proxy}
 * sidecar. It once ran in the node's process, to save a JVM per session; that was given up because
 * the node serves every session's API, so a flaw there (a parser, a route, a dependency) would have
 * exposed every session's token at once, while a proxy process holds one token, speaks to one
 * socket and parses only its session's requests. The cost, measured on a busy 2-core development
 * machine (JDK 25): 1 to 3 s from the spawn to the ready line (median 2.5 s), and about 100 MB
 * resident per proxy, of which the heap is at most 64 MiB ({@code docs/security.md} keeps the
 * numbers). The workload runs as another uid in its own PID, mount and network namespaces; it sees
 * neither the node's nor the proxy's processes nor the socket's path, only {@code 127.0.0.1:8091}
 * (the agent-runner tests try the environment, {@code /proc}, the files and the network from
 * inside).
 */
public final class CredentialProxy implements AutoCloseable {

  /** Bodies in either direction, and an event stream's raw bytes, are capped at 64 MiB. */
  public static final long BODY_CAP = 64L << 20;

  static final String TUNNEL_REFUSED =
      "credential proxy does not support tunnels or protocol upgrades";
  static final String UPSTREAM_UNAVAILABLE = "credential proxy upstream unavailable";
  static final String BUSY = "credential proxy busy: too many requests in flight";

  /**
   * Where the proxy answers which approval markers it wrote ({@link MarkerRecord}): {@code GET
   * /berth/approval-markers/<approval id>}.
   */
  public static final String MARKERS = "/berth/approval-markers/";

  /**
   * Exchanges in flight per session; one more waits up to {@link #BUSY_WAIT}, then gets 503. A CLI
   * runs one model request at a time (a few with sub-agents); the bound keeps a session from
   * holding the host's sockets and threads.
   */
  static final int MAX_IN_FLIGHT = 8;

  static final Duration BUSY_WAIT = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(CredentialProxy.class);

  /** Where the proxy listens: a Unix socket, or (for tests) a port on the host's loopback. */
  public sealed interface Listen {
    /** A Unix socket at {@code path}, created by the proxy and removed when it stops. */
    record Unix(Path path) implements Listen {}

    /** {@code 127.0.0.1}, on a port the system chooses. */
    record Loopback() implements Listen {}

    /** A TCP port on {@code host}: a pod's sidecar, at {@code 127.0.0.1:8091}. */
    record Port(String host, int port) implements Listen {}
  }

  private final ProviderProfile profile;
  private final Optional<SessionId> session;
  private final HttpClient upstream;
  private final java.util.concurrent.Semaphore inFlight =
      new java.util.concurrent.Semaphore(MAX_IN_FLIGHT);
  private final Server server;

  private final Optional<Gatekeeper> gate;

  private CredentialProxy(
      ProviderProfile profile,
      Optional<SessionId> session,
      HttpClient upstream,
      Server server,
      Optional<Gatekeeper> gate) {
    this.profile = profile;
    this.session = session;
    this.upstream = upstream;
    this.server = server;
    this.gate = gate;
  }

  /**
   * Starts a proxy for {@code profile}, listening at {@code listen}, for no session in particular.
   */
  public static CredentialProxy start(ProviderProfile profile, Listen listen) {
    return open(profile, listen, Optional.empty(), Optional.empty());
  }

  /**
   * Starts {@code session}'s proxy: its {@code /healthz} names the session, so that whoever waits
   * for it knows the proxy on that socket or port is this session's and no other's.
   */
  public static CredentialProxy start(ProviderProfile profile, Listen listen, SessionId session) {
    return open(profile, listen, Optional.of(session), Optional.empty());
  }

  /**
   * Starts session {@code session}'s proxy for {@code profile} that holds the tool calls the gate's
   * policy names until its gateway decides ({@link Gatekeeper}); without a gate, or with policy
   * {@code off}, it is the plain proxy.
   */
  public static CredentialProxy start(
      ProviderProfile profile, Listen listen, Optional<GateSettings> gate, SessionId session) {
    Objects.requireNonNull(session, "session");
    return open(
        profile,
        listen,
        Optional.of(session),
        gate.filter(g -> g.policy() != ApprovalPolicy.OFF)
            .map(g -> Gatekeeper.of(g, session.value(), profile.secrets())));
  }

  /** Starts a proxy whose answers pass {@code gate} (tests give one of their own). */
  public static CredentialProxy start(ProviderProfile profile, Listen listen, Gatekeeper gate) {
    return open(profile, listen, Optional.empty(), Optional.of(gate));
  }

  private static CredentialProxy open(
      ProviderProfile profile,
      Listen listen,
      Optional<SessionId> session,
      Optional<Gatekeeper> gate) {
    Objects.requireNonNull(profile, "profile");
    HttpClient client =
        HttpClient.newBuilder()
            .sslContext(TrustedCertificates.context(profile.caCertificate()))
            .connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER)
            .proxy(HttpClient.Builder.NO_PROXY)
            .build();
    VirtualThreadPool threads = new VirtualThreadPool();
    threads.setName("berth-credential-proxy-" + profile.name());
    Server server = new Server(threads);
    CredentialProxy proxy = new CredentialProxy(profile, session, client, server, gate);
    server.setHandler(proxy.new Forwarder());
    switch (listen) {
      case Listen.Unix unix -> {
        UnixDomainServerConnector connector = new UnixDomainServerConnector(server);
        server.addConnector(connector);
        try (SocketAlias alias = SocketAlias.of(unix.path())) {
          connector.setUnixDomainPath(alias.bindPath());
          proxy.started();
        } finally {
          // The socket is bound (or not): from now on Jetty removes the real file when it stops.
          connector.setUnixDomainPath(unix.path());
        }
      }
      case Listen.Loopback loopback -> proxy.startedOn("127.0.0.1", 0);
      case Listen.Port port -> proxy.startedOn(port.host(), port.port());
    }
    return proxy;
  }

  private void startedOn(String host, int port) {
    ServerConnector connector = new ServerConnector(server);
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    started();
  }

  private void started() {
    try {
      server.start();
    } catch (Exception e) {
      try {
        server.stop();
      } catch (Exception ignored) {
        // Starting failed; stopping what half started is best effort.
      }
      throw new IllegalStateException(
          "cannot start the credential proxy for " + profile.name() + ": " + e.getMessage(), e);
    }
  }

  /** The loopback URL of a proxy started with {@link Listen.Loopback}. */
  public URI loopbackUrl() {
    for (var connector : server.getConnectors()) {
      if (connector instanceof ServerConnector tcp) {
        return URI.create("http://127.0.0.1:" + tcp.getLocalPort());
      }
    }
    throw new IllegalStateException("the credential proxy of " + profile.name() + " has no port");
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("stopping the credential proxy of {} failed: {}", profile.name(), e.toString());
    }
    // Now, not once in-flight exchanges end: an event stream the upstream holds open (its CLI was
    // killed mid-answer) would keep the session's stop waiting for as long as the upstream likes.
    upstream.shutdownNow();
  }

  /** The handler: health, refusals, and the forwarding itself. */
  private final class Forwarder extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      try {
        route(request, response);
        callback.succeeded();
      } catch (IOException | RuntimeException e) {
        callback.failed(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        callback.failed(e);
      }
      return true;
    }
  }

  private void route(Request request, Response response) throws IOException, InterruptedException {
    String path = Request.getPathInContext(request);
    if (answeredHere(request.getMethod(), path, response)) {
      return;
    }
    if (request.getMethod().equals("CONNECT") || request.getHeaders().get("Upgrade") != null) {
      answer(response, 405, "text/plain; charset=utf-8", TUNNEL_REFUSED + "\n");
      return;
    }
    if (gate.isPresent()) {
      Optional<String> refusal = GatedRequests.pathRefusal(request.getMethod(), path);
      if (refusal.isPresent()) {
        answer(response, 404, "application/json", GatedRequests.errorBody(refusal.get()));
        return;
      }
    }
    if (!inFlight.tryAcquire(BUSY_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
      answer(response, 503, "text/plain; charset=utf-8", BUSY + "\n");
      return;
    }
    try (CappedInput body = new CappedInput(Content.Source.asInputStream(request));
        UpstreamRequests.Spool spool = new UpstreamRequests.Spool()) {
      HttpResponse<InputStream> answer;
      try {
        HttpRequest outgoing;
        if (gate.isPresent() && GatedRequests.checksBody(request.getMethod(), path)) {
          UpstreamRequests.Held held = UpstreamRequests.held(body, spool);
          Optional<String> refusal;
          try (InputStream read = held.open()) {
            refusal = GatedRequests.toolRefusal(path, read);
          }
          if (refusal.isPresent()) {
            LOG.info("{}: refused a model request: {}", profile.name(), refusal.get());
            answer(response, 400, "application/json", GatedRequests.errorBody(refusal.get()));
            return;
          }
          outgoing = UpstreamRequests.of(profile, request, path, held);
        } else {
          outgoing = UpstreamRequests.of(profile, request, path, body, spool);
        }
        answer = upstream.send(outgoing, HttpResponse.BodyHandlers.ofInputStream());
      } catch (IOException e) {
        if (body.exceeded() || e instanceof UpstreamRequests.TooLarge) {
          answer(response, 413, "text/plain; charset=utf-8", "request body exceeds 64 MiB\n");
          return;
        }
        LOG.info(
            "{}: upstream {} failed: {}",
            profile.name(),
            profile.upstream().getHost(),
            e.toString());
        answer(response, 502, "text/plain; charset=utf-8", UPSTREAM_UNAVAILABLE + "\n");
        return;
      }
      new AnswerRelay(profile, gate).relay(answer, response);
    } finally {
      inFlight.release();
    }
  }

  /** Whether the request is one of the proxy's own (its health, its markers), now answered. */
  private boolean answeredHere(String method, String path, Response response) throws IOException {
    if (method.equals("GET") && path.equals("/healthz")) {
      answer(response, 200, "application/json", health());
      return true;
    }
    if (path.startsWith(MARKERS)) {
      markers(method, path.substring(MARKERS.length()), response);
      return true;
    }
    return false;
  }

  /**
   * {@code GET /berth/approval-markers/<id>}: the markers this proxy wrote under approval {@code
   * id} ({@link MarkerRecord}), 404 when none (or no gate). Never forwarded: the path is the
   * proxy's own, like {@code /healthz}.
   */
  private void markers(String method, String id, Response response) throws IOException {
    if (!method.equals("GET")) {
      answer(response, 405, "text/plain; charset=utf-8", "only GET reads approval markers\n");
      return;
    }
    Optional<String> found =
        id.length() > 200 ? Optional.empty() : gate.flatMap(keeper -> keeper.markers().json(id));
    if (found.isPresent()) {
      answer(response, 200, "application/json", found.get());
    } else {
      answer(
          response,
          404,
          "application/json",
          "{\"error\":\"this proxy wrote no approval marker with that id\"}");
    }
  }

  /** The health answer; with the session, which is what a waiting node or pod agent checks. */
  private String health() {
    return session
        .map(
            id ->
                "{\"status\":\"ok\",\"workload\":\"credential-proxy\",\"session\":\""
                    + id.value()
                    + "\"}")
        .orElse("{\"status\":\"ok\",\"workload\":\"credential-proxy\"}");
  }

  /** A request body, streamed to the upstream, that fails past {@link #BODY_CAP}. */
  private static final class CappedInput extends java.io.FilterInputStream {
    private long count;
    private boolean exceeded;

    CappedInput(InputStream in) {
      super(in);
    }

    boolean exceeded() {
      return exceeded;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        counted(1);
      }
      return b;
    }

    @Override
    public int read(byte[] bytes, int offset, int length) throws IOException {
      int n = super.read(bytes, offset, length);
      if (n > 0) {
        counted(n);
      }
      return n;
    }

    private void counted(int n) throws IOException {
      count += n;
      if (count > BODY_CAP) {
        exceeded = true;
        throw new UpstreamRequests.TooLarge();
      }
    }
  }

  static void answer(Response response, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.getHeaders().put("Content-Type", type);
    response.getHeaders().put("Content-Length", Integer.toString(bytes.length));
    try (OutputStream out = Content.Sink.asOutputStream(response)) {
      out.write(bytes);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
