package dev.berth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

  private static List<Object> parse(String stream) {
    return new SseParser(1 << 20).feed(bytes(stream), 0, bytes(stream).length);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void readsTheOutputStreamAsTheServerWritesIt() {
    List<Object> items =
        parse(
            ": connected\n\n"
                + "id: 5\nevent: output\ndata: {\"offset\":0,\"payloadBase64\":\"aGVsbG8=\",\"nextOffset\":5}\n\n"
                + ": keepalive\n\n"
                + "id: 9\nevent: reset\ndata: {\"nextOffset\":9}\n\n");

    assertThat(items)
        .containsExactly(
            new SseParser.Comment("connected"),
            new SseParser.Event(
                "5", "output", "{\"offset\":0,\"payloadBase64\":\"aGVsbG8=\",\"nextOffset\":5}"),
            new SseParser.Comment("keepalive"),
            new SseParser.Event("9", "reset", "{\"nextOffset\":9}"));
  }

  @Test
  void acceptsCrLfAndCrLineEnds() {
    assertThat(parse("id: 1\r\nevent: a\r\ndata: x\r\n\r\nid: 2\revent: b\rdata: y\r\r"))
        .containsExactly(new SseParser.Event("1", "a", "x"), new SseParser.Event("2", "b", "y"));
  }

  @Test
  void assemblesEventsSplitAtEveryByte() {
    byte[] stream = bytes("id: 7\r\nevent: output\r\ndata: {\"a\":1}\r\n\r\n: c\r\n\r\n");
    SseParser parser = new SseParser(1 << 20);
    List<Object> items = new ArrayList<>();
    for (int i = 0; i < stream.length; i++) {
      items.addAll(parser.feed(stream, i, 1));
    }
    assertThat(items)
        .containsExactly(
            new SseParser.Event("7", "output", "{\"a\":1}"), new SseParser.Comment("c"));
  }

  @Test
  void joinsDataLinesWithNewlinesAndDefaultsTheTypeToMessage() {
    assertThat(parse("data: one\ndata:two\ndata\n\n"))
        .containsExactly(new SseParser.Event("", "message", "one\ntwo\n"));
  }

  @Test
  void keepsTheLastEventIdAcrossEventsAndIgnoresIdsWithNul() {
    assertThat(parse("id: 3\ndata: a\n\ndata: b\n\nid: 4\u0000\ndata: c\n\n"))
        .containsExactly(
            new SseParser.Event("3", "message", "a"),
            new SseParser.Event("3", "message", "b"),
            new SseParser.Event("3", "message", "c"));
  }

  @Test
  void doesNotDispatchAnEventWithoutData() {
    assertThat(parse("id: 3\nevent: output\n\ndata: x\n\n"))
        .containsExactly(new SseParser.Event("3", "message", "x"));
  }

  @Test
  void holdsAnEventUntilItsBlankLineArrives() {
    SseParser parser = new SseParser(1 << 20);
    byte[] first = bytes("id: 1\nevent: output\ndata: x\n");
    byte[] second = bytes("\n");
    assertThat(parser.feed(first, 0, first.length)).isEmpty();
    assertThat(parser.feed(second, 0, second.length))
        .containsExactly(new SseParser.Event("1", "output", "x"));
  }

  @Test
  void skipsALeadingByteOrderMark() {
    assertThat(parse("\uFEFFdata: x\n\n")).containsExactly(new SseParser.Event("", "message", "x"));
  }

  @Test
  void ignoresRetryAndUnknownFields() {
    assertThat(parse("retry: 10\nfoo: bar\ndata: x\n\n"))
        .containsExactly(new SseParser.Event("", "message", "x"));
  }

  @Test
  void refusesALineLongerThanTheLimit() {
    SseParser parser = new SseParser(8);
    byte[] line = bytes("data: 0123456789\n");
    assertThatThrownBy(() -> parser.feed(line, 0, line.length))
        .isInstanceOf(BerthProtocolException.class)
        .hasMessageContaining("longer than 8 bytes");
  }
}
