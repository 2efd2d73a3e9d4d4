package dev.berth.agent.proxy;

import dev.berth.agent.agentcli.MarkerConfirmation;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Asks the session's credential proxy whether it wrote an approval marker: {@code GET
 * /berth/approval-markers/<id>} ({@link CredentialProxy#MARKERS}) on the node's proxy's Unix
 * socket, or on a pod's sidecar port. One HTTP/1.1 exchange per marker line (a few per approval),
 * answered from the proxy's memory; past {@link #WAIT}, or on any failure, the marker is not
 * confirmed (and stays text of the answer): a proxy that cannot answer cannot vouch for it.
 */
public final class ProxyMarkerConfirmation implements MarkerConfirmation {

  /** How long one question may take: the proxy answers from memory, in a millisecond. */
  static final Duration WAIT = Duration.ofSeconds(2);

  /** The most of an answer read: an approval's record is a few hundred bytes. */
  private static final int MAX_ANSWER = 64 << 10;

  /** An approval id as the proxy makes them: {@code <session id>:<32 hex>}. */
  private static final java.util.regex.Pattern ID =
      java.util.regex.Pattern.compile("[0-9a-f]{32}:[0-9a-f]{32}");

  private static final Logger LOG = LoggerFactory.getLogger(ProxyMarkerConfirmation.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final SocketAddress address;

  private ProxyMarkerConfirmation(SocketAddress address) {
    this.address = address;
  }

  /** The node's own proxy of the session, on its Unix socket. */
  public static ProxyMarkerConfirmation onSocket(Path socket) {
    return new ProxyMarkerConfirmation(UnixDomainSocketAddress.of(socket));
  }

  /** A proxy at {@code url}'s host and port: a pod's sidecar, {@code http://127.0.0.1:8091}. */
  public static ProxyMarkerConfirmation at(URI url) {
    return new ProxyMarkerConfirmation(
        new InetSocketAddress(url.getHost(), url.getPort() < 0 ? 80 : url.getPort()));
  }

  @Override
  public Optional<Confirmed> confirm(String approvalId, String state) {
    if (!ID.matcher(approvalId).matches()) {
      return Optional.empty(); // no id the proxy makes: nothing to ask, and nothing to put in a URL
    }
    CompletableFuture<String> answer = new CompletableFuture<>();
    SocketChannel channel;
    try {
      channel = SocketChannel.open(address);
    } catch (IOException e) {
      LOG.warn(
          "the credential proxy at {} cannot be asked about approval {}: {}",
          address,
          approvalId,
          e.toString());
      return Optional.empty();
    }
    try (channel) {
      Thread.ofVirtual()
          .name("berth-approval-marker")
          .start(() -> exchange(channel, approvalId, answer));
      return confirmed(answer.get(WAIT.toMillis(), TimeUnit.MILLISECONDS), approvalId, state);
    } catch (TimeoutException | ExecutionException | IOException e) {
      LOG.warn(
          "the credential proxy at {} did not answer about approval {}: {}",
          address,
          approvalId,
          e.toString());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static void exchange(
      SocketChannel channel, String approvalId, CompletableFuture<String> answer) {
    try {
      String request =
          "GET "
              + CredentialProxy.MARKERS
              + approvalId
              + " HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n";
      channel.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
      ByteBuffer buffer = ByteBuffer.allocate(MAX_ANSWER);
      while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
        // Until the proxy closes the connection.
      }
      answer.complete(new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      answer.completeExceptionally(e);
    }
  }

  /** What the answer records of the marker in {@code state}, if it records that marker at all. */
  static Optional<Confirmed> confirmed(String answer, String approvalId, String state) {
    int body = answer.indexOf("\r\n\r\n");
    if (!answer.startsWith("HTTP/1.1 200") || body < 0) {
      return Optional.empty();
    }
    JsonNode record;
    try {
      record = JSON.readTree(answer.substring(body + 4));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
    if (!record.path("id").asString("").equals(approvalId)) {
      return Optional.empty();
    }
    for (JsonNode marker : record.path("markers")) {
      if (marker.path("state").asString("").equals(state)) {
        return Optional.of(
            new Confirmed(
                record.path("tool").asString(""),
                Optional.ofNullable(marker.get("reason"))
                    .filter(JsonNode::isString)
                    .map(JsonNode::asString)));
      }
    }
    return Optional.empty();
  }
}
