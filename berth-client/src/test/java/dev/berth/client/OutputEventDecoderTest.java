package dev.berth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutputEventDecoderTest {

  private static SseParser.Event output(String id, String data) {
    return new SseParser.Event(id, "output", data);
  }

  @Test
  void decodesAnOutputEventToItsBytes() {
    OutputEvent event =
        OutputEventDecoder.decode(
                output("15", "{\"offset\":10,\"payloadBase64\":\"aGVsbG8=\",\"nextOffset\":15}"))
            .orElseThrow();

    assertThat(event).isInstanceOf(OutputEvent.Chunk.class);
    OutputEvent.Chunk chunk = (OutputEvent.Chunk) event;
    assertThat(chunk.offset()).isEqualTo(10);
    assertThat(chunk.nextOffset()).isEqualTo(15);
    assertThat(new String(chunk.bytes(), StandardCharsets.UTF_8)).isEqualTo("hello");
  }

  @Test
  void decodesAResetEvent() {
    assertThat(OutputEventDecoder.decode(new SseParser.Event("42", "reset", "{\"nextOffset\":42}")))
        .contains(new OutputEvent.Reset(42));
  }

  @Test
  void refusesAnOutputEventWhoseIdIsNotItsNextOffset() {
    assertThatThrownBy(
            () ->
                OutputEventDecoder.decode(
                    output(
                        "14", "{\"offset\":10,\"payloadBase64\":\"aGVsbG8=\",\"nextOffset\":15}")))
        .isInstanceOf(BerthProtocolException.class)
        .hasMessageContaining("id '14'")
        .hasMessageContaining("nextOffset 15");
  }

  @Test
  void refusesAnOutputEventWhosePayloadLengthDisagreesWithItsOffsets() {
    assertThatThrownBy(
            () ->
                OutputEventDecoder.decode(
                    output(
                        "16", "{\"offset\":10,\"payloadBase64\":\"aGVsbG8=\",\"nextOffset\":16}")))
        .isInstanceOf(BerthProtocolException.class)
        .hasMessageContaining("carries 5 bytes")
        .hasMessageContaining("10..16");
  }

  @Test
  void refusesAPayloadThatIsNotStandardBase64() {
    assertThatThrownBy(
            () ->
                OutputEventDecoder.decode(
                    output("13", "{\"offset\":10,\"payloadBase64\":\"a-_\",\"nextOffset\":13}")))
        .isInstanceOf(BerthProtocolException.class)
        .hasMessageContaining("base64");
  }

  @Test
  void refusesAResetWhoseIdIsNotItsNextOffset() {
    assertThatThrownBy(
            () ->
                OutputEventDecoder.decode(new SseParser.Event("0", "reset", "{\"nextOffset\":7}")))
        .isInstanceOf(BerthProtocolException.class)
        .hasMessageContaining("reset");
  }

  @Test
  void refusesDataThatIsNotJsonOrLacksOffsets() {
    assertThatThrownBy(() -> OutputEventDecoder.decode(output("1", "nope")))
        .isInstanceOf(BerthProtocolException.class)
        .hasMessageContaining("not JSON");
    assertThatThrownBy(
            () ->
                OutputEventDecoder.decode(output("1", "{\"payloadBase64\":\"\",\"nextOffset\":1}")))
        .isInstanceOf(BerthProtocolException.class)
        .hasMessageContaining("no integer offset");
    assertThatThrownBy(
            () ->
                OutputEventDecoder.decode(
                    output("1", "{\"offset\":-1,\"payloadBase64\":\"YWI=\",\"nextOffset\":1}")))
        .isInstanceOf(BerthProtocolException.class)
        .hasMessageContaining("negative offset");
  }

  @Test
  void ignoresEventTypesItDoesNotKnow() {
    assertThat(OutputEventDecoder.decode(new SseParser.Event("", "message", "{}"))).isEmpty();
    assertThat(OutputEventDecoder.decode(new SseParser.Event("3", "status", "{}"))).isEmpty();
  }
}
