package dev.berth.server.runtime;

import dev.berth.core.agent.AttachLink;
import dev.berth.core.agent.AttachPeer;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.protocol.wire.AgentEndpoints;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;

/**
 * The agent's WebSocket terminal as an {@link AttachLink}: frames the agent sends in parts are put
 * together before they go to the client, and the next agent frame is requested only once the client
 * took the previous one, so a slow client slows only its own terminal.
 */
final class AgentAttach {

  private final HttpClient client =
      HttpClient.newBuilder().executor(Executors.newVirtualThreadPerTaskExecutor()).build();

  AttachLink open(AgentEndpoints.Endpoint agent, String query, AttachPeer peer) {
    URI uri = URI.create(agent.url("/attach", query).replaceFirst("^http", "ws"));
    WebSocket socket;
    try {
      socket =
          client
              .newWebSocketBuilder()
              .header("Authorization", "Bearer " + agent.token())
              .buildAsync(uri, new Relay(peer))
              .join();
    } catch (java.util.concurrent.CompletionException e) {
      throw new AgentUnreachableException(
          agent.runtimeName(), "its terminal cannot be opened: " + e.getCause(), e);
    }
    return new AttachLink() {
      @Override
      public CompletionStage<?> binary(ByteBuffer frame) {
        return socket.sendBinary(frame, true);
      }

      @Override
      public CompletionStage<?> text(String frame) {
        return socket.sendText(frame, true);
      }

      @Override
      public void abort() {
        socket.abort();
      }
    };
  }

  /** Agent → client. */
  private static final class Relay implements WebSocket.Listener {
    private final AttachPeer peer;
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
    private final StringBuilder text = new StringBuilder();

    Relay(AttachPeer peer) {
      this.peer = peer;
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
      ByteBuffer whole = ByteBuffer.wrap(partial.toByteArray());
      partial.reset();
      return peer.binary(whole).whenComplete((ok, failed) -> ws.request(1));
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (!last) {
        ws.request(1);
        return CompletableFuture.completedFuture(null);
      }
      String whole = text.toString();
      text.setLength(0);
      return peer.text(whole).whenComplete((ok, failed) -> ws.request(1));
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
      peer.closed(status, reason);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
      peer.failed(error);
    }
  }
}
