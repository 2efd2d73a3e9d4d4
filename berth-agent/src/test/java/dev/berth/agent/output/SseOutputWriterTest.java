package dev.berth.agent.output;

import static dev.berth.agent.output.TestBytes.append;
import static dev.berth.agent.output.TestBytes.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.core.testing.MutableClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The SSE wire contract of the output stream, checked with a spec-conformant parser. */
class SseOutputWriterTest {
  private static final Duration KEEPALIVE = Duration.ofSeconds(15);
  private static final Duration HOLD_BACK = Duration.ofMillis(50);
  private static final Pattern OUTPUT_DATA =
      Pattern.compile(
          "\\{\"offset\":(\\d+),\"payloadBase64\":\"([A-Za-z0-9+/=]*)\",\"nextOffset\":(\\d+)}");

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
  private OutputLog log;

  @BeforeEach
  void openLog() {
    log = OutputLog.open(dir, Long.MAX_VALUE, clock);
  }

  @AfterEach
  void closeLog() {
    log.close();
  }

  @Test
  void theStreamSaysConnectedThenFramesEachOutputEventExactly() throws Exception {
    append(log, utf8("hi"));
    log.close();

    assertThat(streamFrom(0))
        .isEqualTo(
            ": connected\n\n"
                + "id: 2\nevent: output\n"
                + "data: {\"offset\":0,\"payloadBase64\":\"aGk=\",\"nextOffset\":2}\n\n");
  }

  @Test
  void aCursorPastTheEndGetsAResetToTheCurrentLengthAndTheStreamGoesOnFromThere() throws Exception {
    append(log, utf8("abc"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<?> stream = executor.submit(() -> stream(log, 99, out, KEEPALIVE));
      await().until(() -> out.toString(StandardCharsets.US_ASCII).contains("event: reset"));
      append(log, utf8("d"));
      log.close();
      stream.get();
    }

    assertThat(out.toString(StandardCharsets.US_ASCII))
        .isEqualTo(
            ": connected\n\n"
                + "id: 3\nevent: reset\ndata: {\"nextOffset\":3}\n\n"
                + "id: 4\nevent: output\n"
                + "data: {\"offset\":3,\"payloadBase64\":\"ZA==\",\"nextOffset\":4}\n\n");
  }

  @Test
  void aCursorBeforeTheHeadOfACappedLogGetsAResetToTheCurrentLength() throws Exception {
    log.close();
    log = OutputLog.open(dir.resolve("capped"), 64 * 1024, clock);
    append(log, TestBytes.pattern(0, 300_000));
    log.close();

    List<SseParser.Item> items = SseParser.parse(streamFrom(10));

    assertThat(items)
        .containsExactly(
            new SseParser.Comment(" connected"),
            new SseParser.Event("300000", "reset", "{\"nextOffset\":300000}"));
  }

  @Test
  void aMegabyteOfRandomBinaryArrivesIntactInContiguousBoundedEvents() throws Exception {
    byte[] written = TestBytes.random(3, 1 << 20);
    appendInRandomPieces(log, written, new Random(5));
    log.close();

    List<Output> events = outputs(streamFrom(0));

    assertThat(concatenate(events, 0)).isEqualTo(written);
    assertThat(events).hasSizeGreaterThanOrEqualTo(16);
  }

  @Test
  void concurrentStreamsOfALiveLogWithInvalidUtf8EachGetEveryByteInOrder() throws Exception {
    byte[] written = TestBytes.random(9, 1 << 20);
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<String>> streams = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        streams.add(executor.submit(() -> streamFrom(0)));
      }
      appendInRandomPieces(log, written, new Random(13));
      log.close();

      for (Future<String> stream : streams) {
        assertThat(concatenate(outputs(stream.get()), 0)).isEqualTo(written);
      }
    }
  }

  @Test
  void eventsOfValidTextEndOnCharacterBoundaries() throws Exception {
    append(log, utf8("añ€😀".repeat(50_000)));
    log.close();

    for (Output event : outputs(streamFrom(0))) {
      assertThat(decodesStrictly(event.payload())).isTrue();
    }
  }

  @Test
  void eachFrameIsFlushedOnItsOwn() throws Exception {
    append(log, TestBytes.random(1, 200_000));
    log.close();
    FlushRecorder out = new FlushRecorder();

    SseOutputWriter.stream(log, 0, out, KEEPALIVE, HOLD_BACK);

    assertThat(out.flushed).hasSize(5).first().isEqualTo(": connected\n\n");
    for (String flushed : out.flushed) {
      assertThat(SseParser.parse(flushed)).hasSize(1);
    }
  }

  @Test
  void aKeepaliveCommentGoesOutWhileNothingFlows() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<?> stream = executor.submit(() -> stream(log, 0, out, Duration.ofMillis(20)));
      await().until(() -> out.toString(StandardCharsets.US_ASCII).contains(": keepalive\n\n"));
      append(log, utf8("x"));
      await().until(() -> out.toString(StandardCharsets.US_ASCII).contains("event: output"));
      log.close();
      stream.get();
    }

    List<SseParser.Item> items = SseParser.parse(out.toString(StandardCharsets.US_ASCII));
    assertThat(items).contains(new SseParser.Comment(" keepalive"));
    assertThat(items).filteredOn(SseParser.Event.class::isInstance).hasSize(1);
  }

  @Test
  void aClientThatGoesAwayEndsTheStreamWithItsIoException() {
    append(log, utf8("data"));
    OutputStream gone =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("Broken pipe");
          }
        };

    assertThatThrownBy(() -> SseOutputWriter.stream(log, 0, gone, KEEPALIVE, HOLD_BACK))
        .isInstanceOf(IOException.class)
        .hasMessage("Broken pipe");
  }

  @Test
  @Timeout(20)
  void aStalledClientNeitherSlowsTheWriterNorStopsTheCapFromDroppingTheHead() throws Exception {
    log.close();
    log = OutputLog.open(dir.resolve("capped"), 1 << 20, clock);
    CountDownLatch release = new CountDownLatch(1);
    StalledClient client = new StalledClient(release);
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<?> stream = executor.submit(() -> stream(log, 0, client, KEEPALIVE));
      await().until(client::isStalled);

      long started = System.nanoTime();
      byte[] piece = TestBytes.random(2, 64 * 1024);
      for (int i = 0; i < 256; i++) {
        append(log, piece);
      }
      long appendNanos = System.nanoTime() - started;

      assertThat(Duration.ofNanos(appendNanos)).isLessThan(Duration.ofSeconds(10));
      assertThat(log.retainedBytes()).isLessThanOrEqualTo(1 << 20);
      release.countDown();
      log.close();
      stream.get();
    }
    assertThat(SseParser.parse(client.received()))
        .containsExactly(
            new SseParser.Comment(" connected"),
            new SseParser.Event("16777216", "reset", "{\"nextOffset\":16777216}"));
  }

  @Test
  void aNonEmptyLastEventIdWinsOverTheOffsetQuery() {
    assertThat(SseOutputWriter.parseCursor("42", "7")).isEqualTo(42);
    assertThat(SseOutputWriter.parseCursor("", "7")).isEqualTo(7);
    assertThat(SseOutputWriter.parseCursor(null, "7")).isEqualTo(7);
    assertThat(SseOutputWriter.parseCursor("0", "7")).isZero();
  }

  @Test
  void anAbsentOrEmptyCursorMeansTheStart() {
    assertThat(SseOutputWriter.parseCursor(null, null)).isZero();
    assertThat(SseOutputWriter.parseCursor("", "")).isZero();
    assertThat(SseOutputWriter.parseCursor(null, String.valueOf(Long.MAX_VALUE)))
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aNegativeCursorIsRefusedNamingItsSourceAndValue() {
    assertThatThrownBy(() -> SseOutputWriter.parseCursor("-1", "5"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Last-Event-ID")
        .hasMessageContaining("\"-1\" is negative");
    assertThatThrownBy(() -> SseOutputWriter.parseCursor(null, "-5"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("offset")
        .hasMessageContaining("\"-5\" is negative");
  }

  @Test
  void aCursorThatIsNotADecimalIntegerIsRefused() {
    for (String bad : List.of("abc", "1.5", " 5", "5 ", "+5", "0x10", "1e3", "-")) {
      assertThatThrownBy(() -> SseOutputWriter.parseCursor(null, bad))
          .as("offset %s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("\"" + bad + "\"");
    }
    assertThatThrownBy(() -> SseOutputWriter.parseCursor("99999999999999999999", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("larger than any byte offset");
  }

  /** One decoded output event. */
  record Output(String id, long offset, byte[] payload, long nextOffset) {}

  /**
   * Parses a stream and checks every output event against the contract: id equals nextOffset,
   * decoded length equals nextOffset - offset, at most 65,536 bytes, each right after the last.
   */
  private static List<Output> outputs(String stream) {
    List<SseParser.Item> items = SseParser.parse(stream);
    assertThat(items.getFirst()).isEqualTo(new SseParser.Comment(" connected"));
    List<Output> outputs = new ArrayList<>();
    for (SseParser.Item item : items.subList(1, items.size())) {
      assertThat(item).isInstanceOf(SseParser.Event.class);
      SseParser.Event event = (SseParser.Event) item;
      assertThat(event.type()).isEqualTo("output");
      Output output = decode(event);
      assertThat(output.id()).isEqualTo(String.valueOf(output.nextOffset()));
      assertThat((long) output.payload().length)
          .isEqualTo(output.nextOffset() - output.offset())
          .isBetween(1L, (long) SseOutputWriter.MAX_EVENT_BYTES);
      if (!outputs.isEmpty()) {
        assertThat(output.offset()).isEqualTo(outputs.getLast().nextOffset());
      }
      outputs.add(output);
    }
    return outputs;
  }

  private static Output decode(SseParser.Event event) {
    Matcher data = OUTPUT_DATA.matcher(event.data());
    assertThat(data.matches()).as("data %s", event.data()).isTrue();
    return new Output(
        event.id(),
        Long.parseLong(data.group(1)),
        Base64.getDecoder().decode(data.group(2)),
        Long.parseLong(data.group(3)));
  }

  private static byte[] concatenate(List<Output> events, long from) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    long expected = from;
    for (Output event : events) {
      assertThat(event.offset()).isEqualTo(expected);
      all.writeBytes(event.payload());
      expected = event.nextOffset();
    }
    return all.toByteArray();
  }

  private static void appendInRandomPieces(OutputLog log, byte[] bytes, Random sizes) {
    for (int at = 0; at < bytes.length; ) {
      int length = Math.min(bytes.length - at, 1 + sizes.nextInt(30_000));
      log.append(bytes, at, length);
      at += length;
    }
  }

  private String streamFrom(long cursor) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    stream(log, cursor, out, KEEPALIVE);
    return out.toString(StandardCharsets.US_ASCII);
  }

  private static Void stream(OutputLog log, long cursor, OutputStream out, Duration keepalive)
      throws Exception {
    SseOutputWriter.stream(log, cursor, out, keepalive, HOLD_BACK);
    return null;
  }

  private static boolean decodesStrictly(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  /** Keeps what was written between flushes, one string per flush. */
  private static final class FlushRecorder extends OutputStream {
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    final List<String> flushed = new ArrayList<>();

    @Override
    public void write(int b) {
      pending.write(b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
      pending.write(bytes, offset, length);
    }

    @Override
    public void flush() {
      flushed.add(pending.toString(StandardCharsets.US_ASCII));
      pending.reset();
    }
  }

  /** A client that stops reading: its first write blocks until released. */
  private static final class StalledClient extends OutputStream {
    private final CountDownLatch release;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private volatile boolean stalled;

    StalledClient(CountDownLatch release) {
      this.release = release;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      stalled = true;
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while stalled", e);
      }
      received.write(bytes, offset, length);
    }

    boolean isStalled() {
      return stalled;
    }

    String received() {
      return received.toString(StandardCharsets.US_ASCII);
    }
  }
}
