package dev.berth.agent.output;

import static dev.berth.agent.output.TestBytes.append;
import static dev.berth.agent.output.TestBytes.pattern;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.testing.MutableClock;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link OutputLog#openRange}: the bytes of a read, held open in the segment files, not copied. */
class OutputRangeTest {
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
  void aRangeHasTheBoundsOfTheSameReadAndStreamsItsBytesAcrossSegments() throws IOException {
    OutputLog log = open(1 << 20);
    append(log, pattern(0, 5 * SEGMENT + 123));

    for (long offset : new long[] {0, 17, SEGMENT - 1, 3L * SEGMENT}) {
      OutputSlice slice = log.read(offset, 2 * SEGMENT + 9);
      try (OutputRange range = log.openRange(offset, 2 * SEGMENT + 9)) {
        assertThat(range.offset()).isEqualTo(slice.offset());
        assertThat(range.length()).isEqualTo(slice.length());
        assertThat(range.endOffset()).isEqualTo(slice.endOffset());
        assertThat(range.nextOffset()).isEqualTo(slice.nextOffset());
        assertThat(range.startOffset()).isEqualTo(slice.startOffset());
        assertThat(readAll(range)).as("range at %d", offset).isEqualTo(slice.bytes());
      }
    }
  }

  @Test
  void everyStreamOfARangeSeesTheSameBytesEvenAfterAHeadDropDeletedItsFiles() throws IOException {
    OutputLog log = open(4L * SEGMENT);
    append(log, pattern(0, 4 * SEGMENT));

    try (OutputRange range = log.openRange(0, 3 * SEGMENT)) {
      byte[] first = readAll(range);
      append(log, pattern(4L * SEGMENT, 6 * SEGMENT));
      assertThat(log.startOffset()).isGreaterThan(3L * SEGMENT);
      assertThat(segmentFiles()).doesNotContain("00000000000000000000.seg");

      assertThat(readAll(range)).isEqualTo(first).isEqualTo(pattern(0, 3 * SEGMENT));
    }
  }

  @Test
  void aRangePastTheEndIsEmptyAndAResetAndOneBeforeTheHeadStartsAtTheHead() throws IOException {
    OutputLog log = open(2L * SEGMENT);
    append(log, pattern(0, 5 * SEGMENT));

    try (OutputRange past = log.openRange(log.nextOffset() + 10, 100)) {
      assertThat(past.reset()).isTrue();
      assertThat(past.length()).isZero();
      assertThat(past.offset()).isEqualTo(log.nextOffset());
      assertThat(readAll(past)).isEmpty();
    }
    try (OutputRange behind = log.openRange(0, 100)) {
      assertThat(behind.behind()).isTrue();
      assertThat(behind.offset()).isEqualTo(log.startOffset());
      assertThat(readAll(behind)).isEqualTo(pattern(log.startOffset(), 100));
    }
  }

  private static byte[] readAll(OutputRange range) throws IOException {
    try (InputStream in = range.stream()) {
      return in.readAllBytes();
    }
  }

  private List<String> segmentFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".seg")).toList();
    }
  }
}
