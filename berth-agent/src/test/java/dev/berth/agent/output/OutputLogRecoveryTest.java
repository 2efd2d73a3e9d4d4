package dev.berth.agent.output;

import static dev.berth.agent.output.OutputLogTest.segmentName;
import static dev.berth.agent.output.TestBytes.append;
import static dev.berth.agent.output.TestBytes.pattern;
import static dev.berth.agent.output.TestBytes.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.testing.MutableClock;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an output log finds when it is opened again: after a close, a kill or a machine crash. */
class OutputLogRecoveryTest {
  private static final int SEGMENT = 64 * 1024;

  @TempDir Path dir;
  @TempDir Path crashed;

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");

  @Test
  void aReopenedLogContinuesItsOffsetsAndContent() {
    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      append(log, pattern(0, SEGMENT + 100));
    }

    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      append(log, pattern(SEGMENT + 100, 50));

      assertThat(log.nextOffset()).isEqualTo(SEGMENT + 150);
      assertThat(log.read(0, Integer.MAX_VALUE).bytes()).isEqualTo(pattern(0, SEGMENT + 150));
    }
  }

  @Test
  void aReopenedLogRemembersTheClockTimeOfItsLastAppend() {
    Instant lastAppend = clock.advance(Duration.ofSeconds(5));
    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      append(log, utf8("x"));
    }
    clock.advance(Duration.ofHours(1));

    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      assertThat(log.lastAppendAt()).contains(lastAppend);
    }
  }

  @Test
  void aReopenedCappedLogKeepsItsHead() {
    try (OutputLog log = open(dir, 2L * SEGMENT)) {
      append(log, pattern(0, 5 * SEGMENT + 7));
    }

    try (OutputLog log = open(dir, 2L * SEGMENT)) {
      assertThat(log.startOffset()).isEqualTo(4L * SEGMENT);
      assertThat(log.read(0, 10).bytes()).isEqualTo(pattern(4L * SEGMENT, 10));
    }
  }

  @Test
  void aSmallerCapAtReopenDropsTheHeadAtOnce() {
    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      append(log, pattern(0, 5 * SEGMENT + 7));
    }

    try (OutputLog log = open(dir, SEGMENT)) {
      assertThat(log.startOffset()).isEqualTo(5L * SEGMENT);
      assertThat(log.retainedBytes()).isEqualTo(7);
    }
  }

  @Test
  void aLogLeftOpenByAKilledProcessReopensAtItsEnd() throws IOException {
    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      append(log, pattern(0, 2 * SEGMENT + 30));
      copyDirectory(dir, crashed);
    }

    try (OutputLog log = open(crashed, Long.MAX_VALUE)) {
      assertThat(log.nextOffset()).isEqualTo(2L * SEGMENT + 30);
      assertThat(log.lastAppendAt()).isPresent();
      append(log, pattern(2L * SEGMENT + 30, 10));
      assertThat(log.read(0, Integer.MAX_VALUE).bytes()).isEqualTo(pattern(0, 2 * SEGMENT + 40));
    }
  }

  @Test
  void aTornLastSegmentCountsWithTheLengthItHas() throws IOException {
    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      append(log, pattern(0, SEGMENT + 30));
    }
    truncate(dir.resolve(segmentName(SEGMENT)), 12);

    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      assertThat(log.nextOffset()).isEqualTo(SEGMENT + 12);
      append(log, pattern(SEGMENT + 12, 5));
      assertThat(log.read(0, Integer.MAX_VALUE).bytes()).isEqualTo(pattern(0, SEGMENT + 17));
    }
  }

  @Test
  void aHoleBeforeTheLastSegmentEndsTheLogThereAndSetsTheRestAside() throws IOException {
    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      append(log, pattern(0, 3 * SEGMENT + 30));
    }
    truncate(dir.resolve(segmentName(SEGMENT)), 100);

    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      assertThat(log.nextOffset()).isEqualTo(SEGMENT + 100);
      assertThat(dir.resolve(segmentName(2L * SEGMENT) + ".orphaned")).exists();
      assertThat(dir.resolve(segmentName(3L * SEGMENT) + ".orphaned")).exists();
      assertThat(log.read(0, Integer.MAX_VALUE).bytes()).isEqualTo(pattern(0, SEGMENT + 100));
    }
  }

  @Test
  void filesThatAreNotSegmentsAreIgnored() throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("notes.txt"), "not output");
    Files.writeString(dir.resolve("12.seg"), "too short a name");

    try (OutputLog log = open(dir, Long.MAX_VALUE)) {
      assertThat(log.nextOffset()).isZero();
    }
  }

  @Test
  void aMissingDirectoryIsCreated() {
    Path nested = dir.resolve("runtime").resolve("output");

    try (OutputLog log = open(nested, Long.MAX_VALUE)) {
      append(log, utf8("x"));
    }

    assertThat(nested.resolve(segmentName(0))).hasContent("x");
  }

  @Test
  void aDirectoryIsOwnedByOneOpenLogAtATime() {
    try (OutputLog first = open(dir, Long.MAX_VALUE)) {
      assertThat(first.isClosed()).isFalse();
      assertThatThrownBy(() -> open(dir, Long.MAX_VALUE))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(dir.toString())
          .hasMessageContaining("already open");
    }

    open(dir, Long.MAX_VALUE).close();
  }

  @Test
  void aCapThatIsNotPositiveIsRefused() {
    assertThatThrownBy(() -> OutputLog.open(dir, 0, clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive cap");
  }

  @Test
  void theSegmentSizeIsAnEighthOfTheCapWithinSixtyFourKibAndFourMib() {
    assertThat(OutputLog.segmentBytesFor(1000)).isEqualTo(64 * 1024);
    assertThat(OutputLog.segmentBytesFor(8L << 20)).isEqualTo(1 << 20);
    assertThat(OutputLog.segmentBytesFor(64L << 20)).isEqualTo(4 << 20);
    assertThat(OutputLog.segmentBytesFor(Long.MAX_VALUE)).isEqualTo(4 << 20);
  }

  private OutputLog open(Path directory, long cap) {
    return OutputLog.open(directory, cap, SEGMENT, clock);
  }

  private static void copyDirectory(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.list(from)) {
      for (Path file : files.toList()) {
        Files.copy(file, to.resolve(file.getFileName()));
      }
    }
  }

  private static void truncate(Path file, long length) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(length);
    }
  }
}
