package dev.berth.agent.http;

import dev.berth.agent.host.SessionHost;
import dev.berth.agent.telemetry.NodeTelemetry;
import dev.berth.protocol.contract.StoreEpochHeader;
import dev.berth.protocol.json.AgentJson;
import dev.berth.protocol.problem.AgentReason;
import dev.berth.protocol.wire.WireLimits;
import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * The agent protocol over HTTP (docs/agent-protocol.md): one server per session host, every route
 * but {@code /healthz} behind the bearer token the control plane minted; {@code GET /metrics} (a
 * node's meters) also takes the node's read-only metrics token.
 */
public final class AgentHttpServer implements AutoCloseable {

  /**
   * The node's meters and the second token that reads them: a scraper is given that one, which
   * reads {@code GET /metrics} and nothing else (the host token controls every session).
   */
  public record Metrics(NodeTelemetry telemetry, String token) {}

  private final Javalin app;
  private final byte[] expectedAuthorization;
  private final byte @Nullable [] metricsAuthorization;
  private final StallWatch stalls;

  /**
   * Whether the host is ready to serve beyond answering: {@code GET /healthz} answers 503 with the
   * reason while it is not (a pod's readiness probe reads it). A node is always ready; a pod's
   * agent session is once its credential proxy sidecar answers for the session.
   */
  @FunctionalInterface
  public interface Readiness {
    Readiness ALWAYS = Optional::empty;

    /** Why the host is not ready; empty when it is. */
    Optional<String> notReady();
  }

  private AgentHttpServer(
      SessionHost host,
      String token,
      Settings settings,
      Optional<Metrics> metrics,
      Readiness readiness) {
    this.expectedAuthorization = ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
    this.metricsAuthorization =
        metrics.map(m -> ("Bearer " + m.token()).getBytes(StandardCharsets.UTF_8)).orElse(null);
    JsonMapper json = AgentJson.mapper();
    Problems problems = new Problems(json);
    Requests requests = new Requests(json);
    this.stalls = new StallWatch(settings.stallTimeout());
    RuntimeRoutes runtimes = new RuntimeRoutes(host, requests, json);
    OutputResponses responses = new OutputResponses(json, settings, stalls);
    OutputRoutes output = new OutputRoutes(host, responses);
    ExecutionRoutes executions = new ExecutionRoutes(host, requests, json, responses);
    PromptRoutes prompts = new PromptRoutes(host, requests, json, responses);
    AttachSocket attach = new AttachSocket(host, this::authorized, settings, stalls);
    this.app =
        Javalin.create(
            config -> {
              config.jetty.host = settings.host();
              config.jetty.port = settings.port();
              config.concurrency.useVirtualThreads = true;
              config.startup.showJavalinBanner = false;
              // Output is streamed as it is produced; compression would hold it back.
              config.http.compressionStrategy = CompressionStrategy.NONE;
              // Jetty's header cache is searched character by character for every header; with a
              // long bearer token on kept connections it cost 5% of a write's CPU (bench/).
              config.jetty.modifyHttpConfiguration(http -> http.setHeaderCacheSize(0));
              config.http.maxRequestSize = WireLimits.MAX_INPUT_BYTES + 1024;
              config.routes.get("/healthz", ctx -> health(ctx, json, readiness));
              authenticate(config.routes, problems, host);
              runtimes.register(config.routes);
              output.register(config.routes);
              executions.register(config.routes);
              prompts.register(config.routes);
              // Behind the token like every route: the meters say how busy the node is.
              metrics.ifPresent(
                  meters ->
                      config.routes.get(
                          METRICS,
                          ctx ->
                              ctx.contentType(NodeTelemetry.CONTENT_TYPE)
                                  .result(meters.telemetry().scrape())));
              config.routes.ws("/v1/sessions/{sid}/attach", attach::configure);
              config.routes.exception(Exception.class, (e, ctx) -> problems.write(ctx, e));
              config.routes.error(
                  404,
                  ctx -> {
                    if (ctx.result() == null) {
                      problems.write(
                          ctx,
                          new Problems.Kind(404, AgentReason.NOT_FOUND),
                          "no route " + ctx.method() + " " + ctx.path());
                    }
                  });
            });
  }

  /**
   * Starts serving {@code host}.
   *
   * @param token the bearer token every request must carry
   */
  public static AgentHttpServer start(SessionHost host, String token, Settings settings) {
    return start(host, token, settings, Optional.empty());
  }

  /**
   * As {@link #start(SessionHost, String, Settings)}, serving {@code telemetry}'s meters at {@code
   * GET /metrics} too, behind the same token.
   */
  public static AgentHttpServer start(
      SessionHost host, String token, Settings settings, Optional<Metrics> metrics) {
    return start(host, token, settings, metrics, Readiness.ALWAYS);
  }

  /** As {@link #start(SessionHost, String, Settings)}, ready as {@code readiness} says. */
  public static AgentHttpServer start(
      SessionHost host, String token, Settings settings, Readiness readiness) {
    return start(host, token, settings, Optional.empty(), readiness);
  }

  private static AgentHttpServer start(
      SessionHost host,
      String token,
      Settings settings,
      Optional<Metrics> metrics,
      Readiness readiness) {
    AgentHttpServer server = new AgentHttpServer(host, token, settings, metrics, readiness);
    try {
      server.app.start();
    } catch (RuntimeException e) {
      server.stalls.close();
      throw e;
    }
    return server;
  }

  public int port() {
    return app.port();
  }

  /** {@code {"status":"ok"}}, or 503 {@code {"status":"starting","reason":...}} while not ready. */
  private static void health(Context ctx, JsonMapper json, Readiness readiness) {
    Optional<String> notReady = readiness.notReady();
    ctx.contentType("application/json");
    if (notReady.isEmpty()) {
      ctx.result("{\"status\":\"ok\"}");
      return;
    }
    ctx.status(503)
        .result(
            json.writeValueAsString(
                java.util.Map.of("status", "starting", "reason", notReady.get())));
  }

  /** How many output consumers were dropped for not reading (see {@link StallWatch}). */
  long stalledDisconnects() {
    return stalls.disconnected();
  }

  @Override
  public void close() {
    app.stop();
    stalls.close();
  }

  private void requireToken(Context ctx, Problems problems) {
    if (ctx.path().equals("/healthz")
        || authorized(ctx.header("Authorization"))
        || readsMetrics(ctx)) {
      return;
    }
    problems.write(
        ctx,
        new Problems.Kind(401, AgentReason.UNAUTHENTICATED),
        "missing or wrong bearer token; send Authorization: Bearer <the host token>");
    ctx.skipRemainingHandlers();
  }

  /** The highest store epoch this host saw (docs/agent-protocol.md). */
  static final String STORE_EPOCH = "/v1/store-epoch";

  /**
   * The token check of every route but the probe's, then the record of the store epoch every
   * authenticated request carries (after the check, so only the control plane raises the mark), and
   * the route that answers the highest seen.
   */
  private void authenticate(
      io.javalin.config.RoutesConfig routes, Problems problems, SessionHost host) {
    routes.before(ctx -> requireToken(ctx, problems));
    routes.before(
        ctx ->
            StoreEpochHeader.parse(ctx.header(StoreEpochHeader.NAME))
                .ifPresent(host.storeEpoch()::observe));
    routes.get(
        STORE_EPOCH,
        ctx -> {
          ctx.contentType("application/json");
          ctx.result("{\"storeEpoch\":" + host.storeEpoch().highest() + "}");
        });
  }

  /** The meters' route, which the metrics token also reads. */
  static final String METRICS = "/metrics";

  /** A {@code GET /metrics} with the metrics token (compared in constant time too). */
  private boolean readsMetrics(Context ctx) {
    String authorization = ctx.header("Authorization");
    return metricsAuthorization != null
        && authorization != null
        && HandlerType.GET.equals(ctx.method())
        && ctx.path().equals(METRICS)
        && MessageDigest.isEqual(
            authorization.getBytes(StandardCharsets.UTF_8), metricsAuthorization);
  }

  /** Constant time, so the token cannot be guessed byte by byte from response times. */
  boolean authorized(String authorization) {
    if (authorization == null) {
      return false;
    }
    return MessageDigest.isEqual(
        authorization.getBytes(StandardCharsets.UTF_8), expectedAuthorization);
  }

  /**
   * Where and how the server streams.
   *
   * @param keepalive how often an idle SSE stream sends {@code : keepalive}
   * @param utf8HoldBack how long a trailing incomplete UTF-8 sequence is held before it is sent raw
   * @param stallTimeout how long one write to a client (an SSE event, a WebSocket frame, a piece of
   *     a read's answer) may wait for the client to take it before the connection is dropped
   */
  public record Settings(
      String host, int port, Duration keepalive, Duration utf8HoldBack, Duration stallTimeout) {

    /** 30 s: twice the keepalive, so a client that reads is never taken for a stalled one. */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(30);

    public Settings {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(keepalive, "keepalive");
      Objects.requireNonNull(utf8HoldBack, "utf8HoldBack");
      Objects.requireNonNull(stallTimeout, "stallTimeout");
      if (stallTimeout.isNegative() || stallTimeout.isZero()) {
        throw new IllegalArgumentException(
            "stallTimeout must be positive, was " + stallTimeout + "; the default is 30 s");
      }
    }

    /** As the canonical constructor, with the default stall timeout. */
    public Settings(String host, int port, Duration keepalive, Duration utf8HoldBack) {
      this(host, port, keepalive, utf8HoldBack, DEFAULT_STALL_TIMEOUT);
    }

    /** Loopback on {@code port}, keepalive every 15 s as the contract says. */
    public static Settings loopback(int port) {
      return new Settings("127.0.0.1", port, Duration.ofSeconds(15), Duration.ofMillis(100));
    }

    public Settings withStallTimeout(Duration timeout) {
      return new Settings(host, port, keepalive, utf8HoldBack, timeout);
    }
  }
}
