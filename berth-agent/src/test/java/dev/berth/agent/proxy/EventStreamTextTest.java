package dev.berth.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The event framing around the per-block redaction: what passes unchanged, and what is rewritten.
 */
class EventStreamTextTest {

  private static final String TOKEN = "sk-framing-token-0123456789";

  private static EventStreamText anthropic() {
    return new EventStreamText(Events.of(ProviderProfile.Api.ANTHROPIC, List.of(TOKEN)));
  }

  private static String all(EventStreamText events, String... pieces) {
    StringBuilder out = new StringBuilder();
    for (String piece : pieces) {
      out.append(events.accept(piece));
    }
    return out.append(events.finish()).toString();
  }

  @Test
  void eventsWithoutASecretPassByteForByteWhateverTheirLineEndsCommentsAndIds() {
    String stream =
        ": keep-alive\r\n\r\n"
            + "event: ping\rdata: {\"type\":\"ping\"}\r\r"
            + "id: 7\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\","
            + "\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n"
            + "data: not json\n\n";

    for (int cut = 0; cut <= stream.length(); cut++) {
      assertThat(all(anthropic(), stream.substring(0, cut), stream.substring(cut)))
          .as("cut at %d", cut)
          .isEqualTo(stream);
    }
  }

  @Test
  void aChangedEventKeepsItsOtherLinesAndGetsOneDataLine() {
    String stream =
        "id: 9\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\n"
            + "data: \"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a "
            + TOKEN
            + " b\"}}\n\n";

    assertThat(all(anthropic(), stream))
        .isEqualTo(
            "id: 9\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\","
                + "\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a [REDACTED] b\"}}\n\n");
  }

  @Test
  void textHeldAtTheEndOfTheStreamIsReleasedAsADeltaOfItsOwn() {
    String delta =
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,"
            + "\"delta\":{\"type\":\"text_delta\",\"text\":\"see sk-fr\"}}\n\n";

    String out = all(anthropic(), delta);

    assertThat(out)
        .contains("\"text\":\"see \"")
        .endsWith(
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,"
                + "\"delta\":{\"type\":\"text_delta\",\"text\":\"sk-fr\"}}\n\n");
  }

  @Test
  void anEventLongerThanTheLimitPassesAsItComesAndTheNextIsParsedAgain() {
    String huge = "data: " + "x".repeat(EventStreamText.MAX_EVENT + 10) + "\n\n";
    String next =
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
            + "\"text\":\""
            + TOKEN
            + "\"}}\n\n";
    EventStreamText events = anthropic();
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < huge.length(); i += 1 << 16) {
      out.append(events.accept(huge.substring(i, Math.min(huge.length(), i + (1 << 16)))));
    }
    out.append(events.accept(next)).append(events.finish());

    assertThat(out.toString()).startsWith(huge).endsWith("\"text\":\"[REDACTED]\"}}\n\n");
  }
}
