package dev.berth.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A token the model writes across two or three streamed deltas, cut at every position, in both API
 * families, through the real proxy: the client, joining each block's deltas as a CLI does, never
 * gets the token, and gets the rest of the text intact. The upstream's stream is written in small
 * chunks that cut events, lines and CRLFs anywhere.
 */
class SplitTokenRedactionTest {

  private static final String TOKEN = "sk-split-provider-token-0123456789abcdef";
  private static final String TEXT = "before " + TOKEN + " after";
  private static final String REDACTED = "before [REDACTED] after";
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path dir;
  private ScriptedProvider provider;
  private CredentialProxy proxy;
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeEach
  void start() throws Exception {
    provider = ScriptedProvider.https(dir);
  }

  @AfterEach
  void stop() {
    if (proxy != null) {
      proxy.close();
    }
    provider.close();
  }

  @Test
  void anthropicDeltasCutAnywhereNeverCarryTheTokenAndKeepTheRestOfTheirText() throws Exception {
    List<List<String>> splits = splits();
    StringBuilder stream =
        new StringBuilder(event("message_start", "{\"type\":\"message_start\"}"));
    for (int block = 0; block < splits.size(); block++) {
      boolean tool = block % 2 == 1;
      String field = tool ? "partial_json" : "text";
      String start =
          tool
              ? "{\"type\":\"tool_use\",\"id\":\"t" + block + "\",\"name\":\"Bash\",\"input\":{}}"
              : "{\"type\":\"text\",\"text\":\"\"}";
      stream.append(
          event(
              "content_block_start",
              "{\"type\":\"content_block_start\",\"index\":"
                  + block
                  + ",\"content_block\":"
                  + start
                  + "}"));
      for (String piece : splits.get(block)) {
        stream.append(
            event(
                "content_block_delta",
                "{\"type\":\"content_block_delta\",\"index\":"
                    + block
                    + ",\"delta\":{\"type\":\""
                    + (tool ? "input_json_delta" : "text_delta")
                    + "\",\""
                    + field
                    + "\":"
                    + JSON.writeValueAsString(piece)
                    + "}}"));
      }
      stream.append(
          event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + block + "}"));
    }
    stream.append(event("message_stop", "{\"type\":\"message_stop\"}"));

    String received = through(ProviderProfile.Api.ANTHROPIC, stream.toString(), "/v1/messages");

    Map<String, StringBuilder> blocks = new LinkedHashMap<>();
    for (JsonNode data : events(received)) {
      if (data.path("type").asString("").equals("content_block_delta")) {
        JsonNode delta = data.path("delta");
        blocks
            .computeIfAbsent(data.path("index").asString(), i -> new StringBuilder())
            .append(delta.path("text").asString(delta.path("partial_json").asString("")));
      }
    }
    assertThat(received).doesNotContain(TOKEN);
    assertThat(blocks).hasSize(splits.size());
    blocks.forEach(
        (index, text) ->
            assertThat(text.toString())
                .as("block %s, cut as %s", index, splits.get(Integer.parseInt(index)))
                .isEqualTo(REDACTED));
  }

  @Test
  void responsesDeltasCutAnywhereNeverCarryTheTokenAndKeepTheRestOfTheirText() throws Exception {
    List<List<String>> splits = splits();
    StringBuilder stream =
        new StringBuilder(event("response.created", "{\"type\":\"response.created\"}"));
    for (int item = 0; item < splits.size(); item++) {
      String kind = item % 2 == 1 ? "response.function_call_arguments" : "response.output_text";
      String ids =
          "\"item_id\":\"i" + item + "\",\"output_index\":" + item + ",\"content_index\":0";
      for (String piece : splits.get(item)) {
        stream.append(
            event(
                kind + ".delta",
                "{\"type\":\""
                    + kind
                    + ".delta\","
                    + ids
                    + ",\"delta\":"
                    + JSON.writeValueAsString(piece)
                    + "}"));
      }
      stream.append(
          event(
              kind + ".done",
              "{\"type\":\""
                  + kind
                  + ".done\","
                  + ids
                  + ",\"text\":"
                  + JSON.writeValueAsString(TEXT)
                  + "}"));
    }
    stream.append(event("response.completed", "{\"type\":\"response.completed\"}"));

    String received = through(ProviderProfile.Api.OPENAI, stream.toString(), "/v1/responses");

    Map<String, StringBuilder> items = new LinkedHashMap<>();
    List<String> done = new ArrayList<>();
    for (JsonNode data : events(received)) {
      String type = data.path("type").asString("");
      if (type.endsWith(".delta")) {
        items
            .computeIfAbsent(data.path("item_id").asString(), i -> new StringBuilder())
            .append(data.path("delta").asString());
      } else if (type.endsWith(".done")) {
        done.add(data.path("text").asString());
        assertThat(items.get(data.path("item_id").asString()).toString())
            .as("the deltas of %s, all before its done", data.path("item_id").asString())
            .isEqualTo(REDACTED);
      }
    }
    assertThat(received).doesNotContain(TOKEN);
    assertThat(items).hasSize(splits.size());
    assertThat(done).hasSize(splits.size()).containsOnly(REDACTED);
    items.forEach(
        (item, text) ->
            assertThat(text.toString())
                .as("item %s, cut as %s", item, splits.get(Integer.parseInt(item.substring(1))))
                .isEqualTo(REDACTED));
  }

  /**
   * The text cut into two at every position, and into three at every two positions in the token.
   */
  private static List<List<String>> splits() {
    List<List<String>> splits = new ArrayList<>();
    for (int cut = 0; cut <= TEXT.length(); cut++) {
      splits.add(List.of(TEXT.substring(0, cut), TEXT.substring(cut)));
    }
    int start = TEXT.indexOf(TOKEN);
    int end = start + TOKEN.length();
    for (int first = start; first <= end; first++) {
      for (int second = first; second <= end; second++) {
        splits.add(
            List.of(
                TEXT.substring(0, first), TEXT.substring(first, second), TEXT.substring(second)));
      }
    }
    return splits;
  }

  private String through(ProviderProfile.Api api, String stream, String path) throws Exception {
    List<String> chunks = new ArrayList<>();
    for (int i = 0; i < stream.length(); i += 4093) {
      chunks.add(stream.substring(i, Math.min(stream.length(), i + 4093)));
    }
    provider.answers("text/event-stream", chunks);
    proxy =
        CredentialProxy.start(
            new ProviderProfile(
                "scripted",
                provider.url(),
                TOKEN,
                Optional.of(provider.caCertificate()),
                api,
                List.of()),
            new CredentialProxy.Listen.Loopback());
    HttpResponse<String> answer =
        client.send(
            HttpRequest.newBuilder(proxy.loopbackUrl().resolve(path))
                .POST(HttpRequest.BodyPublishers.ofString("{\"stream\":true}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(200);
    return answer.body();
  }

  /** CRLF line ends, as some servers write them. */
  private static String event(String type, String data) {
    return "event: " + type + "\r\ndata: " + data + "\r\n\r\n";
  }

  private static List<JsonNode> events(String stream) {
    List<JsonNode> data = new ArrayList<>();
    for (String line : stream.split("\r\n|\r|\n")) {
      if (line.startsWith("data: ")) {
        data.add(JSON.readTree(line.substring("data: ".length())));
      }
    }
    return data;
  }
}
