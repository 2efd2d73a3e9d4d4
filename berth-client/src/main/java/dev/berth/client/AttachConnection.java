package dev.berth.client;

import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * An interactive terminal on a session: {@code GET /sessions/{id}/attach} as a WebSocket. Input
 * goes out as binary frames (at most {@value #MAX_INPUT_FRAME} bytes each; longer input is split),
 * resizes as the text message {@code {"type":"resize","cols":…,"rows":…}}; output comes in as
 * binary frames and control messages ({@code attached}, {@code reset}, {@code error}) as text, both
 * handed to the {@link AttachListener}.
 *
 * <p>Thread-safe: sends from any thread are serialized by one lock and each waits until its frame
 * was handed to the connection (the WebSocket allows one outstanding send), so input keeps its
 * order and a fast typist cannot queue without bound.
 */
public final class AttachConnection implements AutoCloseable {

  /** The most input bytes one frame carries, as the server accepts them. */
  public static final int MAX_INPUT_FRAME = 64 << 10;

  /**
   * How the connection ended.
   *
   * @param statusCode the WebSocket close code (1000 normal; 1006 when it broke without one)
   * @param reason the close reason the peer gave, or what broke
   * @param byClient true when this side closed it ({@link #close()})
   */
  public record Closed(
      int statusCode, String reason, boolean byClient, Optional<Throwable> error) {}

  private static final int ABNORMAL = 1006;

  private final SessionId session;
  private final URI base;
  private final Duration timeout;
  private final ReentrantLock sending = new ReentrantLock();
  private final CompletableFuture<Closed> closed = new CompletableFuture<>();
  private volatile WebSocket socket;
  private Receiver receiver;
  private volatile boolean closing;
  private volatile long cursor;

  // socket and receiver are set by open(), the only way to get a connection, before it returns it.
  @SuppressWarnings("NullAway.Init")
  private AttachConnection(SessionId session, URI base, long offset, Duration timeout) {
    this.session = session;
    this.base = base;
    this.cursor = offset;
    this.timeout = timeout;
  }

  /**
   * Opens the terminal; returns once the server accepted the WebSocket.
   *
   * @throws BerthApiException when the server refuses the upgrade
   * @throws BerthUnreachableException when it cannot be reached
   */
  static AttachConnection open(
      HttpApi api, SessionId session, long offset, AttachListener listener, Duration timeout) {
    AttachConnection connection = new AttachConnection(session, api.base(), offset, timeout);
    connection.receiver = connection.new Receiver(listener);
    URI uri = websocketUri(api.uri("/sessions/" + session + "/attach?offset=" + offset));
    CompletableFuture<WebSocket> opening =
        api.http()
            .newWebSocketBuilder()
            .header("Authorization", "Bearer " + api.token())
            .connectTimeout(timeout)
            .buildAsync(uri, connection.receiver);
    try {
      connection.socket = opening.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return connection;
    } catch (ExecutionException e) {
      throw refusal(api.base(), session, e.getCause());
    } catch (TimeoutException e) {
      opening.cancel(true);
      throw new BerthUnreachableException(
          "cannot reach Berth at " + api.base() + ": the terminal did not open within " + timeout,
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      opening.cancel(true);
      throw new BerthUnreachableException("interrupted while opening the terminal", e);
    }
  }

  static URI websocketUri(URI http) {
    String text = http.toString();
    if (text.startsWith("https://")) {
      return URI.create("wss://" + text.substring("https://".length()));
    }
    return URI.create("ws://" + text.substring("http://".length()));
  }

  private static BerthClientException refusal(
      URI base, SessionId session, @Nullable Throwable cause) {
    if (cause instanceof WebSocketHandshakeException handshake) {
      HttpResponse<?> response = handshake.getResponse();
      Object body = response.body();
      String text =
          body instanceof byte[] bytes
              ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8)
              : body == null ? "" : body.toString();
      HttpHeaders headers =
          response.headers() == null
              ? HttpHeaders.of(Map.of(), (a, b) -> true)
              : response.headers();
      return HttpApi.refused(
          response.statusCode(), headers, text, "the terminal of session " + session);
    }
    if (cause instanceof IOException io) {
      return HttpApi.unreachable(base, io);
    }
    return new BerthUnreachableException(
        "cannot reach Berth at " + base + ": " + String.valueOf(cause), cause);
  }

  /** The offset after the last output byte received. */
  public long cursor() {
    return cursor;
  }

  /** Completes when the connection closed, for any reason; never completes exceptionally. */
  public CompletableFuture<Closed> closed() {
    return closed;
  }

  /**
   * Sends input, split into frames of at most {@value #MAX_INPUT_FRAME} bytes; returns when the
   * last was handed to the connection.
   *
   * @throws BerthUnreachableException when the connection is closed or broke
   */
  public void send(byte[] input) {
    for (int start = 0; start < input.length; start += MAX_INPUT_FRAME) {
      int end = Math.min(input.length, start + MAX_INPUT_FRAME);
      ByteBuffer frame = ByteBuffer.wrap(input, start, end - start);
      sendFrame(ws -> ws.sendBinary(frame, true));
    }
  }

  /**
   * Tells the server the terminal's size.
   *
   * @throws IllegalArgumentException when a dimension is outside 1..1000
   * @throws BerthUnreachableException when the connection is closed or broke
   */
  public void resize(int cols, int rows) {
    if (cols < 1 || cols > 1000 || rows < 1 || rows > 1000) {
      throw new IllegalArgumentException(
          "a terminal is 1..1000 columns by 1..1000 rows, was " + cols + "x" + rows);
    }
    String message = "{\"type\":\"resize\",\"cols\":" + cols + ",\"rows\":" + rows + "}";
    sendFrame(ws -> ws.sendText(message, true));
  }

  private void sendFrame(java.util.function.Function<WebSocket, CompletableFuture<WebSocket>> op) {
    sending.lock();
    try {
      if (closed.isDone() || closing) {
        throw new BerthUnreachableException(
            "the terminal of session " + session + " is closed", null);
      }
      op.apply(socket).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | CompletionException e) {
      throw new BerthUnreachableException(
          "cannot reach Berth at " + base + ": the terminal connection broke: " + e.getCause(), e);
    } catch (TimeoutException e) {
      throw new BerthUnreachableException(
          "cannot reach Berth at " + base + ": input was not taken within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BerthUnreachableException("interrupted while sending input", e);
    } finally {
      sending.unlock();
    }
  }

  /**
   * Detaches: sends a normal close and waits (up to the timeout) for the server's; idempotent. The
   * session keeps running.
   */
  @Override
  public void close() {
    if (closing || closed.isDone()) {
      return;
    }
    closing = true;
    WebSocket ws = socket;
    try {
      ws.sendClose(WebSocket.NORMAL_CLOSURE, "detached")
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      closed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      ws.abort();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ws.abort();
    }
    receiver.finish(new Closed(WebSocket.NORMAL_CLOSURE, "detached", true, Optional.empty()));
  }

  /** The WebSocket's listener: relays frames to the {@link AttachListener}. */
  private final class Receiver implements WebSocket.Listener {
    private final AttachListener listener;
    private final StringBuilder text = new StringBuilder();

    Receiver(AttachListener listener) {
      this.listener = listener;
    }

    @Override
    public void onOpen(WebSocket webSocket) {
      webSocket.request(1);
    }

    @Override
    // The WebSocket calls its listener one message at a time (it asks for each with request(1)):
    // the receiver is cursor's only writer, and volatile is for the threads that read it.
    @SuppressWarnings("NonAtomicVolatileUpdate")
    public @Nullable CompletionStage<?> onBinary(
        WebSocket webSocket, ByteBuffer data, boolean last) {
      byte[] bytes = new byte[data.remaining()];
      data.get(bytes);
      cursor += bytes.length;
      listener.output(bytes);
      webSocket.request(1);
      return null;
    }

    @Override
    public @Nullable CompletionStage<?> onText(
        WebSocket webSocket, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        String message = text.toString();
        text.setLength(0);
        control(message);
      }
      webSocket.request(1);
      return null;
    }

    private void control(String message) {
      JsonNode node;
      try {
        node = Json.mapper().readTree(message);
      } catch (RuntimeException e) {
        return;
      }
      switch (node.path("type").asString("")) {
        case "attached" -> {
          cursor = node.path("offset").asLong(cursor);
          listener.attached(cursor);
        }
        case "reset" -> {
          cursor = node.path("nextOffset").asLong(cursor);
          listener.reset(cursor);
        }
        case "error" ->
            listener.error(node.path("reason").asString(""), node.path("error").asString(""));
        case "shell-exited" ->
            listener.shellExited(node.path("status").asInt(-1), node.path("shell").asInt(0));
        default -> {
          // A control message of a newer server; nothing to do with it.
        }
      }
    }

    @Override
    public @Nullable CompletionStage<?> onClose(
        WebSocket webSocket, int statusCode, String reason) {
      finish(new Closed(statusCode, reason, closing, Optional.empty()));
      return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
      finish(
          new Closed(
              ABNORMAL,
              error.getMessage() == null ? error.toString() : error.getMessage(),
              closing,
              Optional.of(error)));
    }

    private void finish(Closed end) {
      if (closed.complete(end)) {
        listener.closed(end);
      }
    }
  }
}
