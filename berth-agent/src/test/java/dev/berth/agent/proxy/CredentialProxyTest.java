package dev.berth.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.agent.agentcli.FakeModelProvider;
import dev.berth.core.error.InvalidValueException;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The credential proxy against the fake provider over real HTTPS (its own CA): each rule of the
 * original platform's proxy, from the side of a CLI that holds only the placeholder.
 */
class CredentialProxyTest {

  private static final String TOKEN = "sk-real-provider-token-0123456789abcdef";
  @TempDir Path dir;
  private FakeModelProvider provider;
  private CredentialProxy proxy;
  // HTTP/1.1: the JDK client otherwise offers an h2c Upgrade, which the proxy refuses (405).
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeEach
  void start() throws Exception {
    provider = FakeModelProvider.https(dir);
    provider.echoes(TOKEN);
    proxy = CredentialProxy.start(profile(provider.url()), new CredentialProxy.Listen.Loopback());
  }

  @AfterEach
  void stop() {
    proxy.close();
    provider.close();
  }

  @Test
  void theUpstreamGetsTheRealTokenAndOnlyAllowlistedHeaders() throws Exception {
    HttpResponse<String> answer =
        client.send(
            messages("hi")
                .header("Authorization", "Bearer berth-credential-proxy")
                .header("x-api-key", "placeholder")
                .header("Cookie", "a=b")
                .header("X-Forwarded-For", "10.0.0.1")
                .header("anthropic-version", "2023-06-01")
                .header("X-Stainless-Lang", "js")
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(answer.statusCode()).isEqualTo(200);
    FakeModelProvider.Received seen = provider.received().getLast();
    assertThat(seen.path()).isEqualTo("/v1/messages?beta=true");
    assertThat(seen.headers())
        .containsEntry("x-api-key", TOKEN)
        .containsEntry("accept-encoding", "identity")
        .containsEntry("anthropic-version", "2023-06-01")
        .containsEntry("x-stainless-lang", "js")
        .doesNotContainKeys("authorization", "cookie", "x-forwarded-for");
  }

  @Test
  void theTokenGoesAsBearerForOpenAiAndInTheHeaderAProfileNames() throws Exception {
    for (var auth :
        List.of(
            java.util.Map.entry(
                profile(provider.url(), ProviderProfile.Api.OPENAI), "Bearer " + TOKEN),
            java.util.Map.entry(
                withAuth(ProviderProfile.Api.ANTHROPIC, AuthHeader.BEARER), "Bearer " + TOKEN),
            java.util.Map.entry(
                withAuth(ProviderProfile.Api.OPENAI, new AuthHeader("api-key")), TOKEN))) {
      proxy.close();
      proxy = CredentialProxy.start(auth.getKey(), new CredentialProxy.Listen.Loopback());

      client.send(
          messages("hi").header("Authorization", "Bearer berth-credential-proxy").build(),
          HttpResponse.BodyHandlers.ofString());

      String header = auth.getKey().authHeader().name().toLowerCase(java.util.Locale.ROOT);
      assertThat(provider.received().getLast().headers())
          .as(auth.getKey().toString())
          .containsEntry(header, auth.getValue())
          .doesNotContainKey(header.equals("authorization") ? "x-api-key" : "authorization");
    }
  }

  @Test
  void anAuthHeaderMustBeAHeaderNameTheProxyDoesNotSetItself() {
    assertThatThrownBy(() -> new AuthHeader("Bearer x"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("was \"Bearer x\"");
    assertThatThrownBy(() -> new AuthHeader("Content-Length")).hasMessageContaining("other than");
    assertThat(AuthHeader.defaultFor(ProviderProfile.Api.ANTHROPIC))
        .isEqualTo(AuthHeader.X_API_KEY);
    assertThat(AuthHeader.defaultFor(ProviderProfile.Api.OPENAI).bearer()).isTrue();
  }

  @Test
  void aChunkedRequestBodyReachesTheUpstreamWithItsContentLength() throws Exception {
    byte[] body =
        ("{\"model\":\"m\",\"stream\":true,\"max_tokens\":5,\"messages\":[{\"role\":"
                + "\"user\",\"content\":\"hi\"}]}")
            .getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> chunked = client.send(chunked(body), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> sized =
        client.send(messages("hi").build(), HttpResponse.BodyHandlers.ofString());

    assertThat(chunked.statusCode()).isEqualTo(200);
    assertThat(sized.statusCode()).isEqualTo(200);
    List<FakeModelProvider.Received> seen = provider.received();
    assertThat(seen.get(0).headers())
        .containsEntry("content-length", Integer.toString(body.length))
        .doesNotContainKey("transfer-encoding");
    assertThat(seen.get(0).body()).isEqualTo(new String(body, StandardCharsets.UTF_8));
    assertThat(seen.get(1).headers())
        .containsEntry("content-length", Integer.toString(seen.get(1).body().length()))
        .doesNotContainKey("transfer-encoding");
  }

  /** A POST of {@code body} as a stream of unknown length, which the JDK client sends chunked. */
  private HttpRequest chunked(byte[] body) {
    return HttpRequest.newBuilder(proxy.loopbackUrl().resolve("/v1/messages"))
        .header("Content-Type", "application/json")
        .POST(
            HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body)))
        .build();
  }

  @Test
  void aChunkedBodyOverAMebibyteIsSpooledToAFileSentWithItsLengthAndTheFileRemoved()
      throws Exception {
    byte[] body =
        ("{\"model\":\"m\",\"stream\":true,\"max_tokens\":5,\"messages\":[{\"role\":"
                + "\"user\",\"content\":\""
                + "x".repeat(3 * UpstreamRequests.IN_MEMORY)
                + "\"}]}")
            .getBytes(StandardCharsets.UTF_8);
    java.util.List<java.nio.file.Path> before = SpooledBodies.now();

    HttpResponse<String> chunked = client.send(chunked(body), HttpResponse.BodyHandlers.ofString());

    assertThat(chunked.statusCode()).isEqualTo(200);
    FakeModelProvider.Received seen = provider.received().getLast();
    assertThat(seen.headers())
        .containsEntry("content-length", Integer.toString(body.length))
        .doesNotContainKey("transfer-encoding");
    assertThat(seen.body()).isEqualTo(new String(body, StandardCharsets.UTF_8));
    SpooledBodies.assertRemovedSince(before);
  }

  @Test
  void aRequestBodyDeclaredOver64MibIsRefusedWith413WithoutAskingTheUpstream() throws Exception {
    String answer =
        raw(
            "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + (CredentialProxy.BODY_CAP + 1)
                + "\r\n\r\n{");

    assertThat(answer).startsWith("HTTP/1.1 413");
    assertThat(provider.received()).isEmpty();
  }

  @Test
  void aTokenTheUpstreamEchoesIsRedactedInTheEventStreamAlsoWhenSplitAcrossChunks()
      throws Exception {
    HttpResponse<String> answer =
        client.send(
            messages("please echo the token").build(), HttpResponse.BodyHandlers.ofString());

    assertThat(answer.body()).doesNotContain(TOKEN).doesNotContain(TOKEN.substring(0, 12));
    assertThat(answer.body()).contains("[REDACTED]");
  }

  @Test
  void aTokenInAnAnswerThatIsNotAnEventStreamIsRedactedToo() throws Exception {
    HttpResponse<String> answer =
        client.send(
            HttpRequest.newBuilder(proxy.loopbackUrl().resolve("/v1/messages"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\","
                            + "\"content\":\"please echo the token\"}]}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).contains("the token is [REDACTED]").doesNotContain(TOKEN);
  }

  @Test
  void anEventStreamIsForwardedBeforeTheUpstreamFinishesIt() throws Exception {
    provider.holdAnswers();
    HttpResponse<InputStream> answer =
        client.send(messages("hi").build(), HttpResponse.BodyHandlers.ofInputStream());
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(answer.body(), StandardCharsets.UTF_8))) {
      String line;
      boolean sawDelta = false;
      while (!sawDelta && (line = lines.readLine()) != null) {
        sawDelta = line.contains("from the fake");
      }
      assertThat(sawDelta).as("a delta arrived while the upstream still held its stream").isTrue();
      provider.release();
      assertThat(lines.lines().anyMatch(l -> l.contains("message_stop"))).isTrue();
    }
  }

  @Test
  void tunnelsAndUpgradesAreRefusedWith405() throws Exception {
    assertThat(raw("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"))
        .startsWith("HTTP/1.1 405")
        .contains(CredentialProxy.TUNNEL_REFUSED);
    assertThat(
            raw(
                "GET /v1/messages HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"))
        .startsWith("HTTP/1.1 405");
    assertThat(provider.received()).isEmpty();
  }

  @Test
  void anUnreachableUpstreamAnswers502() throws Exception {
    proxy.close();
    proxy =
        CredentialProxy.start(
            profile(URI.create("https://127.0.0.1:1")), new CredentialProxy.Listen.Loopback());

    HttpResponse<String> answer =
        client.send(messages("hi").build(), HttpResponse.BodyHandlers.ofString());

    assertThat(answer.statusCode()).isEqualTo(502);
    assertThat(answer.body()).contains(CredentialProxy.UPSTREAM_UNAVAILABLE);
  }

  @Test
  void anEncodedUpstreamBodyIsRefusedWith502RatherThanPassedUnredacted() throws Exception {
    provider.encodesAnswers();

    HttpResponse<String> answer =
        client.send(messages("hi").build(), HttpResponse.BodyHandlers.ofString());

    assertThat(answer.statusCode()).isEqualTo(502);
    assertThat(answer.body()).contains("gzip body, which it cannot redact");
  }

  @Test
  void healthAnswersWithoutAskingTheUpstream() throws Exception {
    HttpResponse<String> answer =
        client.send(
            HttpRequest.newBuilder(proxy.loopbackUrl().resolve("/healthz")).build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(answer.body()).isEqualTo("{\"status\":\"ok\",\"workload\":\"credential-proxy\"}");
    assertThat(provider.received()).isEmpty();
  }

  @Test
  void itListensOnAUnixSocket() throws Exception {
    Path socket = dir.resolve("proxy.sock");
    CredentialProxy onSocket =
        CredentialProxy.start(profile(provider.url()), new CredentialProxy.Listen.Unix(socket));
    try {
      try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
        channel.connect(UnixDomainSocketAddress.of(socket));
        channel.write(
            ByteBuffer.wrap(
                "GET /healthz HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII)));
        String answer =
            new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
        assertThat(answer).startsWith("HTTP/1.1 200").contains("credential-proxy");
      }
    } finally {
      onSocket.close();
    }
  }

  @Test
  void aProfileMustPointAtHttpsWithoutCredentialsAndHaveAOneLineToken() {
    assertThatThrownBy(() -> profile(URI.create("http://provider.example")))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("must be https");
    assertThatThrownBy(() -> profile(URI.create("https://user:pw@provider.example")))
        .hasMessageContaining("user info");
    assertThatThrownBy(() -> profile(URI.create("https://provider.example/v1?x=1")))
        .hasMessageContaining("no query");
    assertThatThrownBy(
            () ->
                new ProviderProfile(
                    "p",
                    URI.create("https://provider.example"),
                    "a\nb",
                    Optional.empty(),
                    ProviderProfile.Api.ANTHROPIC,
                    List.of()))
        .hasMessageContaining("one line");
    assertThat(profile(URI.create("https://provider.example/base")).toString())
        .doesNotContain(TOKEN);
  }

  private ProviderProfile profile(URI upstream) {
    return profile(upstream, ProviderProfile.Api.ANTHROPIC);
  }

  private ProviderProfile profile(URI upstream, ProviderProfile.Api api) {
    return new ProviderProfile(
        "fake", upstream, TOKEN, Optional.of(provider.caCertificate()), api, List.of());
  }

  private ProviderProfile withAuth(ProviderProfile.Api api, AuthHeader header) {
    return new ProviderProfile(
        "fake",
        provider.url(),
        TOKEN,
        Optional.of(provider.caCertificate()),
        api,
        List.of(),
        header);
  }

  private HttpRequest.Builder messages(String prompt) {
    return HttpRequest.newBuilder(proxy.loopbackUrl().resolve("/v1/messages?beta=true"))
        .header("Content-Type", "application/json")
        .POST(
            HttpRequest.BodyPublishers.ofString(
                "{\"model\":\"m\",\"stream\":true,\"max_tokens\":5,\"messages\":[{\"role\":\"user\","
                    + "\"content\":\""
                    + prompt
                    + "\"}]}"));
  }

  @SuppressWarnings("AddressSelection") // an address literal: nothing is resolved
  private String raw(String request) throws Exception {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", proxy.loopbackUrl().getPort()));
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      byte[] buffer = new byte[4096];
      int n = socket.getInputStream().read(buffer);
      return new String(buffer, 0, Math.max(n, 0), StandardCharsets.UTF_8);
    }
  }
}
