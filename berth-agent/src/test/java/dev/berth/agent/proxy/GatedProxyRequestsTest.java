package dev.berth.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.agent.agentcli.FakeModelProvider;
import dev.berth.agent.proxy.gate.GateSettings;
import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.session.SessionId;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gated session's proxy before anything goes upstream: a request that declares a tool the
 * provider would run itself, or an MCP server, is refused with 400 and never reaches the provider;
 * a path no CLI uses for a model call is refused with 404; a plain model call still goes through.
 */
class GatedProxyRequestsTest {

  private static final String TOKEN = "sk-real-provider-token-gated-0123456789";
  private static final String WEB_FETCH =
      "{\"type\":\"web_fetch_20250910\",\"name\":\"web_fetch\"}";
  @TempDir Path dir;
  private FakeModelProvider provider;
  private CredentialProxy proxy;
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeEach
  void start() throws Exception {
    provider = FakeModelProvider.https(dir);
    proxy =
        CredentialProxy.start(
            new ProviderProfile(
                "fake",
                provider.url(),
                TOKEN,
                Optional.of(provider.caCertificate()),
                ProviderProfile.Api.ANTHROPIC,
                List.of()),
            new CredentialProxy.Listen.Loopback(),
            // Never asked here: no answer holds a tool call.
            Optional.of(
                new GateSettings(
                    ApprovalPolicy.EXTERNAL,
                    URI.create("http://127.0.0.1:1"),
                    "key",
                    Duration.ofSeconds(5))),
            new SessionId("b".repeat(32)));
  }

  @AfterEach
  void stop() {
    proxy.close();
    provider.close();
  }

  @Test
  void aRequestDeclaringAProviderRunToolIsRefusedWith400AndNeverReachesTheProvider()
      throws Exception {
    HttpResponse<String> answer = post("/v1/messages", body("", WEB_FETCH), false);

    assertThat(answer.statusCode()).isEqualTo(400);
    assertThat(answer.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(answer.body())
        .startsWith(
            "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":"
                + "\"berth: the approval gate refuses provider-run tools (web_fetch_20250910)");
    assertThat(provider.received()).isEmpty();
  }

  @Test
  void aSpooledChunkedBodyOverAMebibyteIsCheckedToItsEndRefusedAndItsFileRemoved()
      throws Exception {
    List<Path> before = SpooledBodies.now();
    HttpResponse<String> answer =
        post(
            "/v1/messages",
            body("x".repeat(3 * UpstreamRequests.IN_MEMORY), "{\"name\":\"Bash\"}," + WEB_FETCH),
            true);

    assertThat(answer.statusCode()).isEqualTo(400);
    assertThat(answer.body()).contains("(web_fetch_20250910)");
    assertThat(provider.received()).isEmpty();
    SpooledBodies.assertRemovedSince(before);
  }

  @Test
  void anMcpServerIsRefused() throws Exception {
    String body =
        "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[],\"mcp_servers\":[{\"type\":\"url\","
            + "\"url\":\"https://evil.example/mcp\",\"name\":\"e\"}]}";

    HttpResponse<String> answer = post("/v1/messages", body, false);

    assertThat(answer.statusCode()).isEqualTo(400);
    assertThat(answer.body()).contains("(mcp_servers)");
    assertThat(provider.received()).isEmpty();
  }

  @Test
  void aPlainModelCallWithClientToolsGoesThroughAlsoWhenSpooled() throws Exception {
    List<Path> before = SpooledBodies.now();
    String small = body("hello", "{\"name\":\"Bash\",\"input_schema\":{\"type\":\"object\"}}");
    String large = body("x".repeat(3 * UpstreamRequests.IN_MEMORY), "{\"name\":\"Bash\"}");

    HttpResponse<String> declared = post("/v1/messages", small, false);
    HttpResponse<String> chunked = post("/v1/messages", large, true);

    assertThat(declared.statusCode()).as(declared.body()).isEqualTo(200);
    assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(200);
    List<FakeModelProvider.Received> seen = provider.received();
    assertThat(seen).hasSize(2);
    assertThat(seen.get(0).body()).isEqualTo(small);
    assertThat(seen.get(1).body()).isEqualTo(large);
    assertThat(seen.get(1).headers())
        .containsEntry(
            "content-length", Integer.toString(large.getBytes(StandardCharsets.UTF_8).length));
    SpooledBodies.assertRemovedSince(before);
  }

  @Test
  void aPathNoCliUsesForAModelCallIsRefusedWith404() throws Exception {
    HttpResponse<String> files = post("/v1/files", "{}", false);
    HttpResponse<String> batches = post("/v1/messages/batches", body("", ""), false);

    assertThat(files.statusCode()).isEqualTo(404);
    assertThat(files.body()).contains("forwards only model calls", "not POST /v1/files");
    assertThat(batches.statusCode()).isEqualTo(404);
    assertThat(provider.received()).isEmpty();
  }

  private static String body(String text, String tools) {
    return "{\"model\":\"m\",\"stream\":true,\"max_tokens\":5,\"messages\":[{\"role\":\"user\","
        + "\"content\":\""
        + text
        + "\"}],\"tools\":["
        + tools
        + "]}";
  }

  private HttpResponse<String> post(String path, String body, boolean chunked) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    HttpRequest.BodyPublisher publisher =
        chunked
            ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))
            : HttpRequest.BodyPublishers.ofByteArray(bytes);
    return client.send(
        HttpRequest.newBuilder(proxy.loopbackUrl().resolve(path))
            .header("Content-Type", "application/json")
            .POST(publisher)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
