package dev.berth.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.agent.agentcli.MarkerConfirmation;
import dev.berth.agent.proxy.gate.FakeGateway;
import dev.berth.agent.proxy.gate.GateSettings;
import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.session.SessionId;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy's record of the approval markers it wrote, asked as the node asks it: over the proxy's
 * Unix socket. It confirms exactly the markers an answer carried (the id, each state, the tool and
 * the reason as the marker said them), and nothing the model could have made up.
 */
class ProxyMarkerConfirmationTest {

  private static final String TOKEN = "sk-marker-record-provider-token-4242";
  private static final String KEY = "gate-key";
  private static final SessionId SESSION = new SessionId("c".repeat(32));

  @TempDir Path dir;
  private ScriptedProvider provider;
  private FakeGateway gateway;
  private CredentialProxy proxy;
  private Path socket;

  @BeforeEach
  void start() throws Exception {
    provider = ScriptedProvider.https(dir);
    gateway = FakeGateway.start(KEY);
    socket = Files.createDirectories(dir.resolve("proxy")).resolve("proxy.sock");
  }

  @AfterEach
  void stop() {
    if (proxy != null) {
      proxy.close();
    }
    gateway.close();
    provider.close();
  }

  @Test
  void aMarkerTheProxyWroteIsConfirmedWithItsToolAndReasonAndNoOtherIs() throws Exception {
    gateway.decidesNext("REJECTED", "not [today]");
    start(Optional.of(ApprovalPolicy.ALL));

    String answer = askForToolCall();

    String id = gateway.requests().getFirst().id();
    assertThat(answer).contains("[berth: tool call rejected — Bash · " + id + ": not (today)]");
    MarkerConfirmation markers = ProxyMarkerConfirmation.onSocket(socket);
    assertThat(markers.confirm(id, "pending"))
        .contains(new MarkerConfirmation.Confirmed("Bash", Optional.empty()));
    assertThat(markers.confirm(id, "rejected"))
        .contains(new MarkerConfirmation.Confirmed("Bash", Optional.of("not (today)")));
    assertThat(markers.confirm(id, "approved")).as("a real id with a made-up state").isEmpty();
    assertThat(markers.confirm(SESSION.value() + ":" + "0".repeat(32), "approved"))
        .as("an id the proxy never gave")
        .isEmpty();
    assertThat(markers.confirm("../healthz", "pending")).isEmpty();
  }

  @Test
  void aProxyWithoutAGateConfirmsNothingAndNeverForwardsTheQuestion() throws Exception {
    start(Optional.empty());
    askForToolCall();
    int forwarded = provider.received().size();

    assertThat(
            ProxyMarkerConfirmation.onSocket(socket)
                .confirm(SESSION.value() + ":" + "1".repeat(32), "approved"))
        .isEmpty();
    assertThat(get(CredentialProxy.MARKERS + SESSION.value() + ":" + "1".repeat(32)))
        .startsWith("HTTP/1.1 404");
    assertThat(provider.received()).hasSize(forwarded);
  }

  private void start(Optional<ApprovalPolicy> policy) {
    proxy =
        CredentialProxy.start(
            new ProviderProfile(
                "fake",
                provider.url(),
                TOKEN,
                Optional.of(provider.caCertificate()),
                ProviderProfile.Api.ANTHROPIC,
                List.of()),
            new CredentialProxy.Listen.Unix(socket),
            policy.map(p -> new GateSettings(p, gateway.url(), KEY, Duration.ofSeconds(30))),
            SESSION);
  }

  /** A streamed answer with one Bash call, through the proxy; the answer the client got. */
  private String askForToolCall() throws Exception {
    provider.answers(
        "text/event-stream",
        List.of(
            event("message_start", "{\"type\":\"message_start\",\"message\":{}}"),
            event(
                "content_block_start",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
                    + "{\"type\":\"tool_use\",\"id\":\"toolu_x\",\"name\":\"Bash\",\"input\":{}}}"),
            event(
                "content_block_delta",
                "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
                    + "\"input_json_delta\",\"partial_json\":\"{\\\"command\\\":\\\"ls\\\"}\"}}"),
            event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"),
            event("message_stop", "{\"type\":\"message_stop\"}")));
    String body = "{\"stream\":true}";
    return exchange(
        "POST /v1/messages HTTP/1.1\r\nHost: proxy\r\nContent-Type: application/json\r\n"
            + "Content-Length: "
            + body.length()
            + "\r\nConnection: close\r\n\r\n"
            + body);
  }

  private String get(String path) throws Exception {
    return exchange("GET " + path + " HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n");
  }

  private String exchange(String request) throws Exception {
    try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      channel.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.UTF_8)));
      ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
      while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
        // until the proxy closes
      }
      return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
    }
  }

  private static String event(String type, String data) {
    return "event: " + type + "\ndata: " + data + "\n\n";
  }
}
