package dev.berth.server.api;

import dev.berth.core.agent.AttachLink;
import dev.berth.core.agent.AttachPeer;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.server.session.UseCases;
import io.javalin.websocket.WsCloseStatus;
import io.javalin.websocket.WsConfig;
import io.javalin.websocket.WsConnectContext;
import io.javalin.websocket.WsContext;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.eclipse.jetty.websocket.api.Callback;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /api/v1/sessions/{id}/attach}: the agent's WebSocket terminal, relayed frame by frame
 * through the data plane's {@link AttachLink}. Attaching is passive (a session without a running
 * runtime is refused, nothing is restored); input frames are access and touch the session. Each
 * direction waits for the previous frame to be delivered before it takes the next, so a slow client
 * slows only its own relay.
 */
final class AttachProxy {

  private static final Logger LOG = LoggerFactory.getLogger(AttachProxy.class);
  private static final java.time.Duration CONNECT_TIMEOUT = java.time.Duration.ofSeconds(30);

  private final UseCases sessions;
  private final BiFunction<String, String, Caller> authenticate;

  /**
   * The agent connection of each client connection, registered before it is opened: a client that
   * types at once (the CLI sends its first keystrokes with the upgrade) has its frames wait for the
   * connection instead of finding none and losing them.
   */
  private final Map<String, CompletableFuture<AttachLink>> upstreams = new ConcurrentHashMap<>();

  /** Who each client connection acts for: its input frames are that caller's accesses. */
  private final Map<String, String> actors = new ConcurrentHashMap<>();

  /**
   * @param authenticate the caller from the Authorization header and the session cookie
   */
  AttachProxy(
      UseCases sessions,
      BiFunction<String, String, Caller> authenticate,
      io.micrometer.core.instrument.MeterRegistry registry) {
    this.sessions = sessions;
    this.authenticate = authenticate;
    io.micrometer.core.instrument.Gauge.builder("berth.streams.open", upstreams, Map::size)
        .description("Output streams open to clients: SSE streams and attach WebSockets")
        .tag("kind", "websocket")
        .register(registry);
  }

  void configure(WsConfig ws) {
    ws.onConnect(this::connect);
    ws.onBinaryMessage(
        ctx ->
            upstream(ctx.sessionId())
                .ifPresent(
                    upstream -> {
                      // Each key typed is access; the access log writes at most one a second.
                      sessions
                          .data()
                          .touch(
                              new SessionId(ctx.pathParam("id")),
                              actors.getOrDefault(ctx.sessionId(), "attach"));
                      upstream.binary(ctx.data()).toCompletableFuture().join();
                    }));
    ws.onMessage(
        ctx ->
            upstream(ctx.sessionId())
                .ifPresent(upstream -> upstream.text(ctx.message()).toCompletableFuture().join()));
    ws.onClose(ctx -> close(ctx.sessionId()));
    ws.onError(ctx -> close(ctx.sessionId()));
  }

  /** The connection's agent side, once it is open; empty when it could not be opened. */
  private java.util.Optional<AttachLink> upstream(String connection) {
    CompletableFuture<AttachLink> pending = upstreams.get(connection);
    if (pending == null) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(pending.get(CONNECT_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return java.util.Optional.empty();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return java.util.Optional.empty();
    }
  }

  private void connect(WsConnectContext ctx) {
    CompletableFuture<AttachLink> pending = new CompletableFuture<>();
    upstreams.put(ctx.sessionId(), pending);
    RuntimeRef runtime;
    OptionalLong offset = OptionalLong.empty();
    try {
      Caller caller = authenticate.apply(ctx.header("Authorization"), ctx.cookie("berth_token"));
      actors.put(ctx.sessionId(), caller.actor());
      runtime = sessions.data().passive(caller.scope(), SessionRoutes.id(ctx.pathParam("id")));
      String given = ctx.queryParam("offset");
      if (given != null) {
        long cursor = Long.parseLong(given);
        if (cursor < 0) {
          throw new IllegalArgumentException("offset must be >= 0, was " + given);
        }
        offset = OptionalLong.of(cursor);
      }
    } catch (RuntimeException e) {
      pending.completeExceptionally(e);
      upstreams.remove(ctx.sessionId());
      ctx.closeSession(WsCloseStatus.POLICY_VIOLATION, shorten(e.getMessage()));
      return;
    }
    // The HTTP request log does not see a WebSocket: its upgrade is answered outside the router.
    LOG.info(
        "WS {}/attach open principal={} session={}",
        SessionRoutes.SESSION,
        actors.getOrDefault(ctx.sessionId(), "-"),
        RequestLog.safe(ctx.pathParam("id")));
    // Neither the browser nor the Java client pings; without this an idle terminal would be
    // closed by the server's idle timeout.
    ctx.enableAutomaticPings(15, java.util.concurrent.TimeUnit.SECONDS);
    try {
      pending.complete(sessions.dataPlane().attach(runtime, offset, new Relay(ctx)));
    } catch (RuntimeException e) {
      pending.completeExceptionally(e);
      upstreams.remove(ctx.sessionId());
      LOG.debug("attach to {} failed", runtime.name(), e);
      ctx.closeSession(WsCloseStatus.SERVER_ERROR, "the session's agent cannot be reached");
    }
  }

  private void close(String id) {
    String actor = actors.remove(id);
    if (actor != null) {
      LOG.info("WS {}/attach closed principal={}", SessionRoutes.SESSION, actor);
    }
    CompletableFuture<AttachLink> pending = upstreams.remove(id);
    if (pending != null) {
      // Aborted once it is open, if it is still opening.
      var unused = pending.thenAccept(AttachLink::abort);
    }
  }

  /** Agent → client: each frame's stage completes once the client took it. */
  private final class Relay implements AttachPeer {
    private final WsContext client;

    Relay(WsContext client) {
      this.client = client;
    }

    @Override
    public CompletionStage<?> binary(ByteBuffer frame) {
      Callback.Completable written = new Callback.Completable();
      client.session.sendBinary(frame, written);
      return written;
    }

    @Override
    public CompletionStage<?> text(String frame) {
      Callback.Completable written = new Callback.Completable();
      client.session.sendText(frame, written);
      return written;
    }

    @Override
    public void closed(int status, String reason) {
      upstreams.remove(client.sessionId());
      client.closeSession(status, reason);
    }

    @Override
    public void failed(Throwable error) {
      upstreams.remove(client.sessionId());
      client.closeSession(WsCloseStatus.SERVER_ERROR, "the session's agent went away");
    }
  }

  private static String shorten(@Nullable String message) {
    String text = message == null ? "refused" : message;
    return text.length() > 100 ? text.substring(0, 100) : text;
  }
}
