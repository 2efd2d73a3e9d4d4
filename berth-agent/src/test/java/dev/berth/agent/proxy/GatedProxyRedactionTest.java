package dev.berth.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.agent.proxy.gate.FakeGateway;
import dev.berth.agent.proxy.gate.GateSettings;
import dev.berth.agent.proxy.gate.ToolCall;
import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.session.SessionId;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate and the redaction together, through the real proxy: the gateway is asked about the
 * call's arguments as the model wrote them (its digest binds the raw text, token and all) but is
 * shown them redacted, and the client gets the approved call redacted like any block, with the
 * markers, and nothing of the token.
 */
class GatedProxyRedactionTest {

  private static final String TOKEN = "sk-gated-provider-token-0123456789";
  private static final String KEY = "gate-key";

  @TempDir Path dir;
  private ScriptedProvider provider;
  private FakeGateway gateway;
  private CredentialProxy proxy;

  @BeforeEach
  void start() throws Exception {
    provider = ScriptedProvider.https(dir);
    gateway = FakeGateway.start(KEY);
  }

  @AfterEach
  void stop() {
    if (proxy != null) {
      proxy.close();
    }
    gateway.close();
    provider.close();
  }

  private static String event(String type, String data) {
    return "event: " + type + "\ndata: " + data + "\n\n";
  }

  private String answer(ApprovalPolicy policy, String type, List<String> chunks) throws Exception {
    provider.answers(type, chunks);
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
            Optional.of(new GateSettings(policy, gateway.url(), KEY, Duration.ofSeconds(30))),
            new SessionId("b".repeat(32)));
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .build()
        .send(
            HttpRequest.newBuilder(proxy.loopbackUrl().resolve("/v1/messages"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"stream\":true}"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  void theGatewaySeesTheRawDigestAndARedactedPreviewAndTheClientARedactedReleasedCall()
      throws Exception {
    gateway.decidesNext("APPROVED", "");
    String raw = "{\"command\":\"curl -H 'x: " + TOKEN + "' example.org\"}";
    int cut = raw.indexOf(TOKEN) + 10;

    String got =
        answer(
            ApprovalPolicy.ALL,
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
                        + "\"input_json_delta\",\"partial_json\":"
                        + quoted(raw.substring(0, cut))
                        + "}}"),
                event(
                    "content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
                        + "\"input_json_delta\",\"partial_json\":"
                        + quoted(raw.substring(cut))
                        + "}}"),
                event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"),
                event("message_stop", "{\"type\":\"message_stop\"}")));

    FakeGateway.Pending asked = gateway.requests().getFirst();
    assertThat(asked.digest()).isEqualTo(ToolCall.digest(raw));
    assertThat(asked.arguments().path("command").asString())
        .isEqualTo("curl -H 'x: [REDACTED]' example.org");
    assertThat(gateway.received()).allSatisfy(r -> assertThat(r.body()).doesNotContain(TOKEN));
    assertThat(got)
        .contains("[berth: awaiting approval — Bash · " + asked.id() + "]")
        .contains("[berth: approved — Bash · " + asked.id() + "]")
        .contains("\"index\":2")
        .contains("[REDACTED]")
        .doesNotContain(TOKEN)
        .doesNotContain(TOKEN.substring(0, 10) + "\"");
  }

  @Test
  void aJsonAnswerWithARejectedCallReachesTheClientWithoutItAndWithoutTheToken() throws Exception {
    gateway.decidesNext("REJECTED", "");

    String got =
        answer(
            ApprovalPolicy.ALL,
            "application/json",
            List.of(
                "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\""
                    + TOKEN
                    + "\"},",
                "{\"type\":\"tool_use\",\"id\":\"toolu_y\",\"name\":\"Bash\",\"input\":{}}],"
                    + "\"stop_reason\":\"tool_use\"}"));

    assertThat(got)
        .contains("[REDACTED]", "tool call rejected — Bash", "\"stop_reason\":\"end_turn\"")
        .doesNotContain("toolu_y")
        .doesNotContain(TOKEN);
  }

  @Test
  void withPolicyOffTheProxyIsThePlainProxy() throws Exception {
    List<String> chunks =
        List.of(
            event(
                "content_block_start",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
                    + "{\"type\":\"tool_use\",\"id\":\"toolu_z\",\"name\":\"WebFetch\",\"input\":{}}}"),
            event("message_stop", "{\"type\":\"message_stop\"}"));

    assertThat(answer(ApprovalPolicy.OFF, "text/event-stream", chunks))
        .isEqualTo(String.join("", chunks));
    assertThat(gateway.received()).isEmpty();
  }

  private static String quoted(String text) {
    return tools.jackson.databind.json.JsonMapper.builder().build().writeValueAsString(text);
  }
}
