package dev.berth.server.api;

import dev.berth.core.session.SessionId;
import dev.berth.server.runtime.AgentEndpoints;
import dev.berth.server.session.SessionService;
import io.javalin.websocket.WsCloseStatus;
import io.javalin.websocket.WsConfig;
import io.javalin.websocket.WsConnectContext;
import io.javalin.websocket.WsContext;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.eclipse.jetty.websocket.api.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /api/v1/sessions/{id}/attach}: the agent's WebSocket terminal, relayed frame by frame.
 * Attaching is passive (a session without a running runtime is refused, nothing is restored); input
 * frames are access and touch the session. Each direction waits for the previous frame to be
 * delivered before it takes the next, so a slow client slows only its own relay.
 */
final class AttachProxy {

  private static final Logger LOG = LoggerFactory.getLogger(AttachProxy.class);
  private static final java.time.Duration CONNECT_TIMEOUT = java.time.Duration.ofSeconds(30);

  private final SessionService sessions;
  private final BiFunction<String, String, Caller> authenticate;
  private final HttpClient client =
      HttpClient.newBuilder().executor(Executors.newVirtualThreadPerTaskExecutor()).build();

  /**
   * The agent connection of each client connection, registered before it is opened: a client that
   * types at once (the CLI sends its first keystrokes with the upgrade) has its frames wait for the
   * connection instead of finding none and losing them.
   */
  private final Map<String, CompletableFuture<WebSocket>> upstreams = new ConcurrentHashMap<>();

  /**
   * When each client connection last counted as access. Typing sends a frame per key, and each
   * touch is a store write: one per connection per {@link #TOUCH_EVERY} is enough, since the idle
   * policy measures idleness in minutes (a touch at most a second old still holds it off).
   */
  private final Map<String, Long> touchedAt = new ConcurrentHashMap<>();

  static final java.time.Duration TOUCH_EVERY = java.time.Duration.ofSeconds(1);

  /**
   * @param authenticate the caller from the Authorization header and the session cookie
   */
  AttachProxy(SessionService sessions, BiFunction<String, String, Caller> authenticate) {
    this.sessions = sessions;
    this.authenticate = authenticate;
  }

  void configure(WsConfig ws) {
    ws.onConnect(this::connect);
    ws.onBinaryMessage(
        ctx ->
            upstream(ctx.sessionId())
                .ifPresent(
                    upstream -> {
                      touch(ctx.sessionId(), new SessionId(ctx.pathParam("id")));
                      upstream.sendBinary(ctx.data(), true).join();
                    }));
    ws.onMessage(
        ctx ->
            upstream(ctx.sessionId())
                .ifPresent(upstream -> upstream.sendText(ctx.message(), true).join()));
    ws.onClose(ctx -> close(ctx.sessionId()));
    ws.onError(ctx -> close(ctx.sessionId()));
  }

  /** The connection's agent side, once it is open; empty when it could not be opened. */
  private java.util.Optional<WebSocket> upstream(String connection) {
    CompletableFuture<WebSocket> pending = upstreams.get(connection);
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
    CompletableFuture<WebSocket> pending = new CompletableFuture<>();
    upstreams.put(ctx.sessionId(), pending);
    AgentEndpoints.Endpoint agent;
    String url;
    try {
      Caller caller = authenticate.apply(ctx.header("Authorization"), ctx.cookie("berth_token"));
      agent = sessions.streamable(caller.scope(), SessionRoutes.id(ctx.pathParam("id")));
      String offset = ctx.queryParam("offset");
      String query = "";
      if (offset != null) {
        long cursor = Long.parseLong(offset);
        if (cursor < 0) {
          throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        }
        query = "offset=" + cursor;
      }
      url = agent.url("/attach", query).replaceFirst("^http", "ws");
    } catch (RuntimeException e) {
      pending.completeExceptionally(e);
      upstreams.remove(ctx.sessionId());
      ctx.closeSession(WsCloseStatus.POLICY_VIOLATION, shorten(e.getMessage()));
      return;
    }
    // Neither the browser nor the Java client pings; without this an idle terminal would be
    // closed by the server's idle timeout.
    ctx.enableAutomaticPings(15, java.util.concurrent.TimeUnit.SECONDS);
    try {
      WebSocket upstream =
          client
              .newWebSocketBuilder()
              .header("Authorization", "Bearer " + agent.token())
              .buildAsync(URI.create(url), new Relay(ctx))
              .join();
      pending.complete(upstream);
    } catch (RuntimeException e) {
      pending.completeExceptionally(e);
      upstreams.remove(ctx.sessionId());
      LOG.debug("attach to {} failed", agent.runtimeName(), e);
      ctx.closeSession(WsCloseStatus.SERVER_ERROR, "the session's agent cannot be reached");
    }
  }

  private void touch(String connection, SessionId session) {
    long now = System.nanoTime();
    Long last = touchedAt.get(connection);
    if (last != null && now - last < TOUCH_EVERY.toNanos()) {
      return;
    }
    touchedAt.put(connection, now);
    sessions.touch(session);
  }

  private void close(String id) {
    touchedAt.remove(id);
    CompletableFuture<WebSocket> pending = upstreams.remove(id);
    if (pending != null) {
      // Aborted once it is open, if it is still opening.
      pending.thenAccept(WebSocket::abort);
    }
  }

  /** Agent → client. */
  private final class Relay implements WebSocket.Listener {
    private final WsContext client;
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
    private final StringBuilder text = new StringBuilder();

    Relay(WsContext client) {
      this.client = client;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
      byte[] bytes = new byte[data.remaining()];
      data.get(bytes);
      partial.writeBytes(bytes);
      if (!last) {
        ws.request(1);
        return CompletableFuture.completedFuture(null);
      }
      Callback.Completable written = new Callback.Completable();
      client.session.sendBinary(ByteBuffer.wrap(partial.toByteArray()), written);
      partial.reset();
      // The next agent frame is taken only once this one reached the client: a slow client
      // slows its own relay instead of piling output up in the control plane's memory.
      return written.whenComplete((ok, failed) -> ws.request(1));
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (!last) {
        ws.request(1);
        return CompletableFuture.completedFuture(null);
      }
      Callback.Completable written = new Callback.Completable();
      client.session.sendText(text.toString(), written);
      text.setLength(0);
      return written.whenComplete((ok, failed) -> ws.request(1));
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
      upstreams.remove(client.sessionId());
      client.closeSession(status, reason);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
      upstreams.remove(client.sessionId());
      client.closeSession(WsCloseStatus.SERVER_ERROR, "the session's agent went away");
    }
  }

  private static String shorten(String message) {
    String text = message == null ? "refused" : message;
    return text.length() > 100 ? text.substring(0, 100) : text;
  }
}
