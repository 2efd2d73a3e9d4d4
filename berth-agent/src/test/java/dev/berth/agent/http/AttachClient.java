package dev.berth.agent.http;

import java.io.ByteArrayOutputStream;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * One {@code GET attach} WebSocket as a terminal client sees it: every frame in arrival order, the
 * output bytes, the close code. A stalled client takes the first frame and then asks for nothing
 * more, as a browser tab that stopped reading would; the JDK client then stops reading the socket.
 */
final class AttachClient implements WebSocket.Listener {

  /** A whole message: text, or the bytes of a binary one. */
  record Frame(String text, byte[] bytes) {
    boolean isText() {
      return text != null;
    }

    JsonNode json() {
      return AgentApi.JSON.readTree(text);
    }
  }

  /** The close a client saw: its status code and reason. */
  record Close(int code, String reason) {}

  private final boolean stalled;
  private final List<Frame> frames = new ArrayList<>();
  private final ByteArrayOutputStream output = new ByteArrayOutputStream();
  private final CompletableFuture<Close> closed = new CompletableFuture<>();
  private final StringBuilder textPart = new StringBuilder();
  private final ByteArrayOutputStream binaryPart = new ByteArrayOutputStream();
  private volatile WebSocket socket;
  private volatile Throwable openFailure;

  AttachClient(boolean stalled) {
    this.stalled = stalled;
  }

  @Override
  public void onOpen(WebSocket webSocket) {
    socket = webSocket;
    webSocket.request(1);
  }

  @Override
  public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
    synchronized (this) {
      textPart.append(data);
      if (last) {
        frames.add(new Frame(textPart.toString(), null));
        textPart.setLength(0);
      }
    }
    return more(webSocket, last);
  }

  @Override
  public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
    byte[] bytes = new byte[data.remaining()];
    data.get(bytes);
    synchronized (this) {
      binaryPart.writeBytes(bytes);
      output.writeBytes(bytes);
      if (last) {
        frames.add(new Frame(null, binaryPart.toByteArray()));
        binaryPart.reset();
      }
    }
    return more(webSocket, last);
  }

  @Override
  public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
    closed.complete(new Close(statusCode, reason));
    return null;
  }

  @Override
  public void onError(WebSocket webSocket, Throwable error) {
    closed.completeExceptionally(error);
  }

  /** A stalled client stops asking once it has its first whole message. */
  private CompletionStage<?> more(WebSocket webSocket, boolean last) {
    boolean firstDone;
    synchronized (this) {
      firstDone = !frames.isEmpty();
    }
    if (!stalled || !last || !firstDone) {
      webSocket.request(1);
    }
    return null;
  }

  void failedToOpen(Throwable failure) {
    openFailure = failure;
    closed.completeExceptionally(failure);
  }

  /** Why the handshake failed, when it did. */
  Optional<Throwable> openFailure() {
    return Optional.ofNullable(openFailure);
  }

  synchronized List<Frame> frames() {
    return List.copyOf(frames);
  }

  /** The text messages received, as JSON. */
  synchronized List<JsonNode> messages() {
    return frames.stream().filter(Frame::isText).map(Frame::json).toList();
  }

  /** Every output byte received, in order. */
  synchronized byte[] output() {
    return output.toByteArray();
  }

  synchronized int outputSize() {
    return output.size();
  }

  String outputText() {
    return new String(output(), StandardCharsets.UTF_8);
  }

  /** Sends {@code text} as one binary frame (terminal input). */
  void type(String text) {
    send(text.getBytes(StandardCharsets.UTF_8));
  }

  void send(byte[] bytes) {
    socket.sendBinary(ByteBuffer.wrap(bytes), true).orTimeout(10, TimeUnit.SECONDS).join();
  }

  /** Sends one text frame (a control message). */
  void sendText(String text) {
    socket.sendText(text, true).orTimeout(10, TimeUnit.SECONDS).join();
  }

  CompletableFuture<Close> closed() {
    return closed;
  }

  /** Drops the connection at once; safe to call on a client that never opened. */
  void disconnect() {
    WebSocket open = socket;
    if (open != null) {
      open.abort();
    }
  }
}
