package dev.berth.agent.proxy.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What a gated session's proxy lets through to the provider, read from the request's body. */
class GatedRequestsTest {

  private static final String MESSAGES = "/v1/messages";
  private static final String RESPONSES = "/v1/responses";

  @ParameterizedTest
  @ValueSource(
      strings = {
        "web_fetch_20250910",
        "web_search_20250305",
        "code_execution_20250825",
        "bash_20250124",
        "mcp_toolset"
      })
  void anAnthropicToolWithATypeOtherThanCustomIsRefusedByName(String type) {
    String body =
        "{\"model\":\"m\",\"tools\":[{\"name\":\"Bash\",\"input_schema\":{\"type\":\"object\"}},"
            + "{\"name\":\"x\",\"type\":\""
            + type
            + "\"}],\"messages\":[]}";

    assertThat(refusal(MESSAGES, body))
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .startsWith(
                        "berth: the approval gate refuses provider-run tools (" + type + ")"));
  }

  @Test
  void anthropicClientToolsWithoutATypeOrOfTypeCustomPass() {
    String body =
        "{\"tools\":[{\"name\":\"Bash\",\"input_schema\":{\"type\":\"object\",\"properties\":"
            + "{\"type\":{\"type\":\"string\"}}}},{\"type\":\"custom\",\"name\":\"Read\"}],"
            + "\"mcp_servers\":[],\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    assertThat(refusal(MESSAGES, body)).isEmpty();
    assertThat(refusal("/v1/messages/count_tokens", body)).isEmpty();
  }

  @Test
  void anyMcpServerForAnthropicsConnectorIsRefused() {
    String body =
        "{\"messages\":[],\"mcp_servers\":[{\"type\":\"url\",\"url\":\"https://evil.example/mcp\","
            + "\"name\":\"e\"}]}";

    assertThat(refusal(MESSAGES, body))
        .hasValueSatisfying(m -> assertThat(m).contains("(mcp_servers)"));
    assertThat(refusal(MESSAGES, "{\"mcp_servers\":null}")).isEmpty();
    assertThat(refusal(MESSAGES, "{\"mcp_servers\":{\"a\":1}}")).isPresent();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "web_search",
        "web_search_preview",
        "mcp",
        "code_interpreter",
        "file_search",
        "computer_use_preview",
        "image_generation",
        "shell"
      })
  void aResponsesToolTheProviderRunsIsRefusedByName(String type) {
    String body =
        "{\"input\":[],\"tools\":[{\"type\":\"function\",\"name\":\"exec_command\"},"
            + "{\"type\":\""
            + type
            + "\",\"server_url\":\"https://evil.example\"}]}";

    assertThat(refusal(RESPONSES, body))
        .hasValueSatisfying(m -> assertThat(m).contains("provider-run tools (" + type + ")"));
  }

  @Test
  void responsesClientToolsAndANamespaceOfFunctionsPassAsCodexSendsThem() {
    String body =
        "{\"model\":\"gpt-5-codex\",\"input\":[],\"tools\":[{\"type\":\"function\",\"name\":"
            + "\"exec_command\",\"parameters\":{\"type\":\"object\"}},{\"type\":\"custom\","
            + "\"name\":\"apply_patch\"},{\"type\":\"local_shell\"},{\"type\":\"namespace\","
            + "\"name\":\"multi_agent_v1\",\"tools\":[{\"type\":\"function\",\"name\":"
            + "\"close_agent\"}]}],\"tool_choice\":\"auto\"}";

    assertThat(refusal(RESPONSES, body)).isEmpty();
    assertThat(refusal("/v1/chat/completions", body)).isEmpty();
  }

  @Test
  void aProviderRunToolInsideANamespaceIsRefusedAndSoIsANestedNamespace() {
    assertThat(
            refusal(
                RESPONSES,
                "{\"tools\":[{\"tools\":[{\"type\":\"web_search\"}],\"type\":\"namespace\"}]}"))
        .hasValueSatisfying(m -> assertThat(m).contains("(web_search)"));
    assertThat(
            refusal(
                RESPONSES,
                "{\"tools\":[{\"type\":\"namespace\",\"tools\":[{\"type\":\"namespace\","
                    + "\"tools\":[]}]}]}"))
        .hasValueSatisfying(m -> assertThat(m).contains("(namespace)"));
  }

  @Test
  void everyRepeatedTypeOrToolsKeyIsCheckedWhicheverOneTheProviderTakes() {
    assertThat(refusal(RESPONSES, "{\"tools\":[{\"type\":\"web_search\",\"type\":\"function\"}]}"))
        .isPresent();
    assertThat(refusal(MESSAGES, "{\"tools\":[],\"tools\":[{\"type\":\"web_fetch_20250910\"}]}"))
        .isPresent();
  }

  @Test
  void aResponsesToolWithoutATypeAndChatsWebSearchOptionsAreRefused() {
    assertThat(refusal(RESPONSES, "{\"tools\":[{\"name\":\"x\"}]}"))
        .hasValueSatisfying(m -> assertThat(m).contains("(no type)"));
    assertThat(refusal("/v1/chat/completions", "{\"web_search_options\":{}}"))
        .hasValueSatisfying(m -> assertThat(m).contains("(web_search_options)"));
  }

  @Test
  void aBodyThatIsNotOneJsonObjectIsRefused() {
    assertThat(refusal(MESSAGES, "[]")).isPresent();
    assertThat(refusal(MESSAGES, "{\"tools\":[")).isPresent();
    assertThat(refusal(MESSAGES, "{} {\"tools\":[{\"type\":\"web_fetch_20250910\"}]}")).isPresent();
    assertThat(refusal(MESSAGES, "")).isPresent();
  }

  @Test
  void aLargeBodyReadAByteAtATimeIsCheckedToItsEnd() {
    // 8 MiB of conversation before the tools, delivered in 1-byte reads: streamed, never a tree.
    InputStream head =
        new ByteArrayInputStream(
            ("{\"messages\":[{\"role\":\"user\",\"content\":\"" + "y".repeat(8 << 20) + "\"}],")
                .getBytes(StandardCharsets.UTF_8));
    InputStream tail =
        new ByteArrayInputStream(
            "\"tools\":[{\"type\":\"web_fetch_20250910\"}]}".getBytes(StandardCharsets.UTF_8));
    InputStream trickle =
        new java.io.FilterInputStream(new SequenceInputStream(head, tail)) {
          @Override
          public int read(byte[] b, int off, int len) throws java.io.IOException {
            return super.read(b, off, Math.min(len, 1));
          }
        };

    assertThat(GatedRequests.toolRefusal(MESSAGES, trickle))
        .hasValueSatisfying(m -> assertThat(m).contains("(web_fetch_20250910)"));
  }

  @Test
  void onlyTheModelCallPathsAndTheModelListAreForwarded() {
    assertThat(GatedRequests.pathRefusal("POST", "/v1/messages")).isEmpty();
    assertThat(GatedRequests.pathRefusal("POST", "/v1/messages/count_tokens")).isEmpty();
    assertThat(GatedRequests.pathRefusal("POST", "/v1/responses")).isEmpty();
    assertThat(GatedRequests.pathRefusal("POST", "/v1/chat/completions")).isEmpty();
    assertThat(GatedRequests.pathRefusal("GET", "/v1/models")).isEmpty();
    assertThat(GatedRequests.pathRefusal("GET", "/v1/models/gpt-5-codex")).isEmpty();
    assertThat(GatedRequests.pathRefusal("POST", "/v1/files"))
        .hasValueSatisfying(m -> assertThat(m).endsWith("not POST /v1/files"));
    assertThat(GatedRequests.pathRefusal("POST", "/v1/messages/batches")).isPresent();
    assertThat(GatedRequests.pathRefusal("GET", "/v1/responses/resp_1")).isPresent();
    assertThat(GatedRequests.pathRefusal("DELETE", "/v1/models/x")).isPresent();
  }

  @Test
  void theRefusalIsAnErrorBodyTheClisShowWithItsMessageEscaped() {
    assertThat(GatedRequests.errorBody("berth: \"x\""))
        .isEqualTo(
            "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                + "\"message\":\"berth: \\\"x\\\"\"}}");
  }

  private static Optional<String> refusal(String path, String body) {
    return GatedRequests.toolRefusal(
        path, new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
  }
}
