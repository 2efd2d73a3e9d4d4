package dev.berth.agent.output;

import static dev.berth.agent.output.TestBytes.append;
import static dev.berth.agent.output.TestBytes.pattern;
import static dev.berth.agent.output.TestBytes.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.testing.MutableClock;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Appending, reading by cursor, capping and waiting on one open output log. */
class OutputLogTest {
  private static final int SEGMENT = 64 * 1024;

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
  private final List<OutputLog> opened = new ArrayList<>();

  private OutputLog open(long cap) {
    OutputLog log = OutputLog.open(dir, cap, SEGMENT, clock);
    opened.add(log);
    return log;
  }

  @AfterEach
  void closeLogs() {
    opened.forEach(OutputLog::close);
  }

  @Test
  void aNewLogIsEmptyAtOffsetZeroWithNoAppendTime() {
    OutputLog log = open(1 << 20);

    assertThat(log.startOffset()).isZero();
    assertThat(log.nextOffset()).isZero();
    assertThat(log.retainedBytes()).isZero();
    assertThat(log.lastAppendAt()).isEmpty();
    assertThat(log.read(0, 100).bytes()).isEmpty();
  }

  @Test
  void aReadFromACursorReturnsTheBytesFromThereAndTheCurrentLength() {
    OutputLog log = open(1 << 20);
    append(log, utf8("hello, world"));

    OutputSlice slice = log.read(7, 100);

    assertThat(slice.bytes()).isEqualTo(utf8("world"));
    assertThat(slice.offset()).isEqualTo(7);
    assertThat(slice.nextOffset()).isEqualTo(12);
    assertThat(slice.endOffset()).isEqualTo(12);
    assertThat(slice.reset()).isFalse();
    assertThat(slice.behind()).isFalse();
  }

  @Test
  void aDeltaReadReturnsOnlyWhatCameAfterTheCursorAndZeroReplaysAll() {
    OutputLog log = open(1 << 20);
    append(log, utf8("A\n"));
    long cursor = log.read(0, 100).nextOffset();
    append(log, utf8("B\n"));

    assertThat(log.read(cursor, 100).bytes()).isEqualTo(utf8("B\n"));
    assertThat(log.read(0, 100).bytes()).isEqualTo(utf8("A\nB\n"));
    assertThat(log.read(0, 100).bytes()).isEqualTo(utf8("A\nB\n"));
  }

  @Test
  void aReadAtZeroReplaysEverySegmentInOrder() {
    OutputLog log = open(Long.MAX_VALUE);
    for (int i = 0; i < 300; i++) {
      append(log, pattern(log.nextOffset(), 1000 + i));
    }

    OutputSlice all = log.read(0, Integer.MAX_VALUE);

    assertThat(segmentFiles()).hasSizeGreaterThan(5);
    assertThat(all.length()).isEqualTo(log.nextOffset());
    assertThat(all.bytes()).isEqualTo(pattern(0, all.length()));
  }

  @Test
  void aReadIsLimitedToMaxBytes() {
    OutputLog log = open(1 << 20);
    append(log, pattern(0, 1000));

    OutputSlice slice = log.read(100, 10);

    assertThat(slice.bytes()).isEqualTo(pattern(100, 10));
    assertThat(slice.endOffset()).isEqualTo(110);
    assertThat(slice.nextOffset()).isEqualTo(1000);
  }

  @Test
  void aReadAtTheEndReturnsNothingAndTheCurrentLength() {
    OutputLog log = open(1 << 20);
    append(log, utf8("abc"));

    OutputSlice slice = log.read(3, 100);

    assertThat(slice.bytes()).isEmpty();
    assertThat(slice.nextOffset()).isEqualTo(3);
    assertThat(slice.reset()).isFalse();
  }

  @Test
  void aReadPastTheEndReturnsNothingTheCurrentLengthAndAReset() {
    OutputLog log = open(1 << 20);
    append(log, utf8("abc"));

    OutputSlice slice = log.read(50, 100);

    assertThat(slice.bytes()).isEmpty();
    assertThat(slice.requested()).isEqualTo(50);
    assertThat(slice.offset()).isEqualTo(3);
    assertThat(slice.nextOffset()).isEqualTo(3);
    assertThat(slice.reset()).isTrue();
  }

  @Test
  void aNegativeCursorOrSizeIsRefusedWithTheValue() {
    OutputLog log = open(1 << 20);

    assertThatThrownBy(() -> log.read(-1, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("offset=-1");
    assertThatThrownBy(() -> log.read(0, -10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxBytes=-10");
  }

  @Test
  void anAppendLargerThanASegmentSpansSegmentsNamedByTheirStartOffsets() {
    OutputLog log = open(Long.MAX_VALUE);
    append(log, pattern(0, 2 * SEGMENT + 10));

    assertThat(segmentFiles())
        .containsExactly(
            "00000000000000000000.seg", "00000000000000065536.seg", "00000000000000131072.seg");
    assertThat(log.read(SEGMENT - 5, 20).bytes()).isEqualTo(pattern(SEGMENT - 5, 20));
  }

  @Test
  void theCapDropsWholeOldestSegmentsAndIssuedCursorsKeepTheirMeaning() {
    long cap = 4L * SEGMENT;
    OutputLog log = open(cap);
    append(log, pattern(0, 100));
    long oldCursor = 40;
    for (long at = 100; at < 20L * SEGMENT; at += 7000) {
      append(log, pattern(at, 7000));
    }

    OutputSlice slice = log.read(oldCursor, 100);

    assertThat(log.startOffset()).isPositive().isEqualTo(log.startOffset() / SEGMENT * SEGMENT);
    assertThat(log.retainedBytes()).isLessThanOrEqualTo(cap).isGreaterThan(cap - SEGMENT);
    assertThat(slice.behind()).isTrue();
    assertThat(slice.offset()).isEqualTo(log.startOffset());
    assertThat(slice.startOffset()).isEqualTo(log.startOffset());
    assertThat(slice.bytes()).isEqualTo(pattern(log.startOffset(), 100));
    assertThat(log.read(log.nextOffset() - 10, 100).bytes())
        .isEqualTo(pattern(log.nextOffset() - 10, 10));
    assertThat(segmentFiles())
        .hasSizeBetween(4, 5)
        .first()
        .isEqualTo(segmentName(log.startOffset()));
  }

  @Test
  void theSegmentBeingWrittenIsKeptEvenWhenItAloneExceedsTheCap() {
    OutputLog log = open(1000);
    append(log, pattern(0, 3 * SEGMENT + 5));

    assertThat(log.startOffset()).isEqualTo(3L * SEGMENT);
    assertThat(log.read(0, 100).bytes()).isEqualTo(pattern(3L * SEGMENT, 5));
    assertThat(segmentFiles()).containsExactly(segmentName(3L * SEGMENT));
  }

  @Test
  void appendsFollowTheInjectedClock() {
    OutputLog log = open(1 << 20);
    append(log, utf8("a"));
    Instant later = clock.advance(Duration.ofMinutes(3));
    append(log, utf8("b"));

    assertThat(log.lastAppendAt()).contains(later);
  }

  @Test
  void anEmptyAppendChangesNothing() {
    OutputLog log = open(1 << 20);

    log.append(new byte[4], 2, 0);

    assertThat(log.nextOffset()).isZero();
    assertThat(log.lastAppendAt()).isEmpty();
  }

  @Test
  void aClosedLogRefusesAppendsButStillAnswersReads() {
    OutputLog log = open(1 << 20);
    append(log, utf8("kept"));
    log.close();
    log.close();

    assertThat(log.isClosed()).isTrue();
    assertThat(log.read(0, 100).bytes()).isEqualTo(utf8("kept"));
    assertThatThrownBy(() -> append(log, utf8("x")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(dir.toString())
        .hasMessageContaining("closed");
  }

  @Test
  void aSegmentThatCannotBeCreatedFailsTheAppendNamingTheFile() throws Exception {
    OutputLog log = open(Long.MAX_VALUE);
    append(log, pattern(0, SEGMENT));
    Path blocker = Files.createDirectory(dir.resolve(segmentName(SEGMENT)));

    assertThatThrownBy(() -> append(log, utf8("x")))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining(blocker.toString());
    assertThat(log.nextOffset()).isEqualTo(SEGMENT);
  }

  @Test
  void awaitBeyondAnswersAtOnceWhenBytesAreAlreadyThere() throws Exception {
    OutputLog log = open(1 << 20);
    append(log, utf8("ab"));

    assertThat(log.awaitBeyond(1, Duration.ofMinutes(1))).isTrue();
  }

  @Test
  void awaitBeyondGivesUpAfterItsTimeout() throws Exception {
    OutputLog log = open(1 << 20);
    append(log, utf8("ab"));

    long started = System.nanoTime();
    assertThat(log.awaitBeyond(2, Duration.ofMillis(30))).isFalse();
    assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(Duration.ofMillis(30).toNanos());
  }

  @Test
  void awaitBeyondWakesOnTheNextAppend() throws Exception {
    OutputLog log = open(1 << 20);
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Boolean> waiter = executor.submit(() -> log.awaitBeyond(0, Duration.ofSeconds(10)));
      Thread.sleep(20);
      append(log, utf8("x"));

      assertThat(waiter.get()).isTrue();
    }
  }

  @Test
  void awaitBeyondReturnsWhenTheLogClosesSoNoReaderHangs() throws Exception {
    OutputLog log = open(1 << 20);
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Boolean> waiter = executor.submit(() -> log.awaitBeyond(0, Duration.ofSeconds(10)));
      Thread.sleep(20);
      log.close();

      assertThat(waiter.get()).isFalse();
      assertThat(log.awaitBeyond(0, Duration.ofSeconds(10))).isFalse();
    }
  }

  @Test
  void aMegabyteOfRandomBinaryReadsBackIntact() {
    OutputLog log = open(Long.MAX_VALUE);
    byte[] written = TestBytes.random(7, 1 << 20);
    Random sizes = new Random(11);
    for (int at = 0; at < written.length; ) {
      int length = Math.min(written.length - at, 1 + sizes.nextInt(20_000));
      log.append(written, at, length);
      at += length;
    }

    byte[] read = new byte[written.length];
    for (long cursor = 0; cursor < written.length; ) {
      OutputSlice slice = log.read(cursor, 1 + sizes.nextInt(50_000));
      System.arraycopy(slice.bytes(), 0, read, (int) cursor, slice.length());
      cursor = slice.endOffset();
    }

    assertThat(read).isEqualTo(written);
  }

  @Test
  void concurrentReadersSeeEveryByteInOrderWhileTheWriterAppends() throws Exception {
    OutputLog log = open(Long.MAX_VALUE);
    int total = 2 << 20;
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<byte[]>> readers = new ArrayList<>();
      for (int r = 0; r < 4; r++) {
        int maxBytes = 1000 + r * 20_000;
        readers.add(executor.submit(() -> readUntil(log, total, maxBytes)));
      }
      for (long at = 0; at < total; at += 4096) {
        append(log, pattern(at, 4096));
      }
      for (Future<byte[]> reader : readers) {
        assertThat(reader.get()).isEqualTo(pattern(0, total));
      }
    }
  }

  private static byte[] readUntil(OutputLog log, int total, int maxBytes) throws Exception {
    byte[] seen = new byte[total];
    long cursor = 0;
    while (cursor < total) {
      log.awaitBeyond(cursor, Duration.ofSeconds(5));
      OutputSlice slice = log.read(cursor, maxBytes);
      assertThat(slice.offset()).isEqualTo(cursor);
      System.arraycopy(slice.bytes(), 0, seen, (int) cursor, slice.length());
      cursor = slice.endOffset();
    }
    return seen;
  }

  private List<String> segmentFiles() {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(file -> file.getFileName().toString())
          .filter(name -> name.endsWith(".seg"))
          .sorted()
          .toList();
    } catch (java.io.IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String segmentName(long start) {
    return String.format("%020d.seg", start);
  }

  @Test
  void theLogsDirectoryItsSegmentsAndItsLockArePrivateToTheHostUser() throws Exception {
    Path nested = dir.resolve("state").resolve("output");
    OutputLog log = OutputLog.open(nested, 1 << 20, SEGMENT, clock);
    opened.add(log);
    append(log, pattern(0, SEGMENT + 10));

    assertThat(mode(dir.resolve("state"))).isEqualTo("rwx------");
    assertThat(mode(nested)).isEqualTo("rwx------");
    try (Stream<Path> files = Files.list(nested)) {
      List<Path> all = files.toList();
      assertThat(all).as("two segments and the lock").hasSize(3);
      for (Path file : all) {
        assertThat(mode(file)).as(file.getFileName().toString()).isEqualTo("rw-------");
      }
    }
  }

  private static String mode(Path path) throws java.io.IOException {
    return java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(path));
  }
}
