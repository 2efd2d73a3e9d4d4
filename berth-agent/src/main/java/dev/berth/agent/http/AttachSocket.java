package dev.berth.agent.http;

import dev.berth.agent.host.SessionHost;
import dev.berth.agent.host.ShellExit;
import dev.berth.agent.output.FollowEvent;
import dev.berth.agent.output.OutputFollower;
import dev.berth.agent.output.OutputLog;
import dev.berth.core.session.SessionId;
import io.javalin.websocket.WsCloseStatus;
import io.javalin.websocket.WsConfig;
import io.javalin.websocket.WsConnectContext;
import io.javalin.websocket.WsContext;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import org.eclipse.jetty.websocket.api.Callback;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET attach}: an interactive terminal over one WebSocket. Output goes out as binary frames
 * from the requested cursor (each connection follows the log on its own virtual thread, so a slow
 * client only ever slows itself); binary frames in are input; text frames in are JSON control
 * messages ({@code {"type":"resize","cols":…,"rows":…}}). Text frames out say where the output
 * starts ({@code attached}) and when the cursor had to jump ({@code reset}). A client that takes no
 * frame for the stall timeout is disconnected ({@link StallWatch}); it reattaches from its cursor.
 */
final class AttachSocket {

  /** One input frame at most; a paste arrives in several frames. */
  static final int MAX_INPUT_FRAME = 64 << 10;

  private static final Logger LOG = LoggerFactory.getLogger(AttachSocket.class);
  private static final int MAX_FRAME = 64 << 10;

  private final SessionHost host;
  private final Predicate<String> authorized;
  private final AgentHttpServer.Settings settings;
  private final StallWatch stalls;
  private final JsonMapper json = dev.berth.protocol.json.AgentJson.mapper();
  private final Map<String, Thread> followers = new ConcurrentHashMap<>();

  AttachSocket(
      SessionHost host,
      Predicate<String> authorized,
      AgentHttpServer.Settings settings,
      StallWatch stalls) {
    this.host = host;
    this.authorized = authorized;
    this.settings = settings;
    this.stalls = stalls;
  }

  void configure(WsConfig ws) {
    ws.onConnect(this::connect);
    ws.onBinaryMessage(ctx -> input(ctx, bytesOf(ctx.data())));
    ws.onMessage(ctx -> control(ctx, ctx.message()));
    ws.onClose(ctx -> stop(ctx));
    ws.onError(ctx -> stop(ctx));
  }

  private void connect(WsConnectContext ctx) {
    if (!authorized.test(ctx.header("Authorization"))) {
      ctx.closeSession(WsCloseStatus.POLICY_VIOLATION, "missing or wrong bearer token");
      return;
    }
    SessionId session;
    OutputLog log;
    long cursor;
    long live;
    try {
      session = new SessionId(ctx.pathParam("sid"));
      // HTTP before-handlers do not run for WebSocket upgrades: check the runtime scope here.
      String runtime = ctx.queryParam("runtime");
      if (runtime != null) {
        host.requireRuntime(session, runtime);
      }
      log = host.output(session);
      cursor = Requests.cursor(ctx.queryParam("offset"), "offset");
      // Everything before this point is replay: its terminal queries are neutralised.
      live = log.nextOffset();
      // An attach opens on a prompt: a shell that exited is replaced by a new one.
      host.ensureShell(session);
    } catch (RuntimeException e) {
      ctx.closeSession(WsCloseStatus.POLICY_VIOLATION, truncate(e.getMessage()));
      return;
    }
    ctx.enableAutomaticPings(15, java.util.concurrent.TimeUnit.SECONDS);
    SessionId attached = session;
    ReplayGuard guard = new ReplayGuard(live);
    Thread follower =
        Thread.ofVirtual()
            .name("attach-" + session.value())
            .start(() -> follow(ctx, attached, log, cursor, guard));
    followers.put(ctx.sessionId(), follower);
  }

  private void follow(
      WsContext ctx, SessionId session, OutputLog log, long cursor, ReplayGuard guard) {
    OutputFollower follower = new OutputFollower(log, cursor, MAX_FRAME, settings.utf8HoldBack());
    int announced = lastExit(session).map(ShellExit::shell).orElse(0);
    try {
      sendText(
          ctx,
          json.writeValueAsString(
              Map.of("type", "attached", "offset", cursor, "live", guard.live())));
      while (ctx.session.isOpen()) {
        announced = announceExit(ctx, session, follower.cursor(), announced);
        FollowEvent event = follower.next(Duration.ofSeconds(1));
        switch (event) {
          case FollowEvent.Chunk chunk -> {
            byte[] bytes = guard.pass(chunk.offset(), chunk.bytes());
            if (bytes.length > 0) {
              sendBinary(ctx, ByteBuffer.wrap(bytes));
            }
          }
          case FollowEvent.Reset reset -> {
            byte[] held = guard.release();
            if (held.length > 0) {
              sendBinary(ctx, ByteBuffer.wrap(held));
            }
            sendText(
                ctx,
                json.writeValueAsString(Map.of("type", "reset", "nextOffset", reset.nextOffset())));
          }
          case FollowEvent.Idle idle -> {}
          case FollowEvent.Closed closed -> {
            ctx.closeSession(WsCloseStatus.NORMAL_CLOSURE, "the runtime was removed");
            return;
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | StallWatch.StalledException e) {
      LOG.debug("attach stream of {} ended: {}", ctx.sessionId(), e.toString());
    }
  }

  /**
   * Tells the client, once the output it was sent reaches past the marker line, that the shell
   * exited: {@code {"type":"shell-exited","status":N,"shell":K}}. The connection stays; the next
   * input starts a new shell. Returns the last shell announced.
   */
  private int announceExit(WsContext ctx, SessionId session, long sentUpTo, int announced)
      throws InterruptedException, StallWatch.StalledException {
    Optional<ShellExit> exit = lastExit(session);
    if (exit.isEmpty()
        || exit.get().shell() <= announced
        || exit.get().markerEnd() < 0
        || sentUpTo < exit.get().markerEnd()) {
      return announced;
    }
    sendText(
        ctx,
        json.writeValueAsString(
            Map.of(
                "type",
                "shell-exited",
                "status",
                exit.get().status(),
                "shell",
                exit.get().shell())));
    return exit.get().shell();
  }

  private Optional<ShellExit> lastExit(SessionId session) {
    try {
      return host.lastShellExit(session);
    } catch (RuntimeException removed) {
      return Optional.empty();
    }
  }

  /*
   * The follower sends a frame and waits until it is written before it reads on. WsContext.send
   * queues without waiting and Jetty's queue has no bound, so a client that stopped reading used to
   * make the host buffer everything the shell wrote meanwhile in memory (AttachSocketTest measured
   * 32 MB for 35 MB of output). Waiting keeps a stalled client at one frame; only its own virtual
   * thread waits, the shell and other clients do not. It waits for the stall timeout at most: then
   * the client is disconnected, so that it holds neither a thread nor a frame for ever.
   */
  private void sendBinary(WsContext ctx, ByteBuffer bytes)
      throws InterruptedException, StallWatch.StalledException {
    Callback.Completable written = new Callback.Completable();
    ctx.session.sendBinary(bytes, written);
    awaitWritten(ctx, written);
  }

  private void sendText(WsContext ctx, String text)
      throws InterruptedException, StallWatch.StalledException {
    Callback.Completable written = new Callback.Completable();
    ctx.session.sendText(text, written);
    awaitWritten(ctx, written);
  }

  private void awaitWritten(WsContext ctx, Callback.Completable written)
      throws InterruptedException, StallWatch.StalledException {
    try {
      stalls.await(written, "attach " + ctx.sessionId(), ctx.session::disconnect);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "attach client " + ctx.sessionId() + " went away: " + e.getCause(), e.getCause());
    }
  }

  private void input(WsContext ctx, byte[] bytes) {
    if (bytes.length > MAX_INPUT_FRAME) {
      ctx.closeSession(
          WsCloseStatus.MESSAGE_TOO_BIG, "input frames are at most " + MAX_INPUT_FRAME + " bytes");
      return;
    }
    try {
      host.input(new SessionId(ctx.pathParam("sid")), java.util.Optional.empty(), bytes);
    } catch (RuntimeException e) {
      sendError(ctx, e);
    }
  }

  private void control(WsContext ctx, String message) {
    try {
      JsonNode node = json.readTree(message);
      if (!"resize".equals(node.path("type").asString(""))) {
        throw new dev.berth.core.error.InvalidValueException(
            "unknown control message; send {\"type\":\"resize\",\"cols\":N,\"rows\":N}");
      }
      host.resize(
          new SessionId(ctx.pathParam("sid")),
          java.util.Optional.empty(),
          node.path("cols").asInt(0),
          node.path("rows").asInt(0));
    } catch (RuntimeException e) {
      sendError(ctx, e);
    }
  }

  private void sendError(WsContext ctx, RuntimeException e) {
    Problems.Kind kind = Problems.classify(e);
    ctx.send(
        json.writeValueAsString(
            Map.of(
                "type",
                "error",
                "reason",
                kind.reason().wireName(),
                "error",
                String.valueOf(e.getMessage()))));
  }

  private void stop(WsContext ctx) {
    Thread follower = followers.remove(ctx.sessionId());
    if (follower != null) {
      follower.interrupt();
    }
  }

  private static byte[] bytesOf(ByteBuffer data) {
    byte[] bytes = new byte[data.remaining()];
    data.get(bytes);
    return bytes;
  }

  /** WebSocket close reasons are limited to 123 bytes. */
  private static String truncate(@Nullable String reason) {
    String text = reason == null ? "refused" : reason;
    return text.length() > 100 ? text.substring(0, 100) : text;
  }
}
