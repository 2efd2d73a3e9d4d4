package dev.berth.agent.output;

import static dev.berth.agent.output.TestBytes.append;
import static dev.berth.agent.output.TestBytes.concat;
import static dev.berth.agent.output.TestBytes.pattern;
import static dev.berth.agent.output.TestBytes.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.testing.MutableClock;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputFollowerTest {
  private static final Duration NO_WAIT = Duration.ZERO;
  private static final Duration LONG = Duration.ofSeconds(10);
  private static final byte[] EURO = utf8("€");

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
  private OutputLog log;

  @BeforeEach
  void openLog() {
    log = OutputLog.open(dir, Long.MAX_VALUE, 64 * 1024, clock);
  }

  @AfterEach
  void closeLog() {
    log.close();
  }

  @Test
  void aFollowerReturnsTheLogInContiguousChunksOfAtMostMaxChunkThenIdles() throws Exception {
    append(log, pattern(0, 1000));
    OutputFollower follower = new OutputFollower(log, 0, 64, LONG);

    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    long expectedOffset = 0;
    for (int i = 0; i < 16; i++) {
      FollowEvent.Chunk chunk = (FollowEvent.Chunk) follower.next(NO_WAIT);
      assertThat(chunk.offset()).isEqualTo(expectedOffset);
      assertThat(chunk.bytes().length).isLessThanOrEqualTo(64);
      seen.write(chunk.bytes());
      expectedOffset = chunk.nextOffset();
    }

    assertThat(seen.toByteArray()).isEqualTo(pattern(0, 1000));
    assertThat(follower.cursor()).isEqualTo(1000);
    assertThat(follower.next(Duration.ofMillis(5))).isEqualTo(new FollowEvent.Idle());
  }

  @Test
  void chunksEndOnCharacterBoundariesWhenMaxChunkWouldSplitACharacter() throws Exception {
    append(log, utf8("€".repeat(100)));
    OutputFollower follower = new OutputFollower(log, 0, 10, LONG);

    while (follower.cursor() < 300) {
      FollowEvent.Chunk chunk = (FollowEvent.Chunk) follower.next(NO_WAIT);
      assertThat(chunk.bytes().length).isEqualTo(Math.min(9, 300 - chunk.offset()));
      assertThat(decodesStrictly(chunk.bytes())).isTrue();
    }
  }

  @Test
  void aTrailingIncompleteCharacterIsHeldUntilItsLastByteArrives() throws Exception {
    append(log, concat(utf8("ab"), new byte[] {EURO[0], EURO[1]}));
    OutputFollower follower = new OutputFollower(log, 0, 1024, LONG);

    assertThat(chunkBytes(follower.next(NO_WAIT))).isEqualTo(utf8("ab"));
    assertThat(follower.next(Duration.ofMillis(20))).isEqualTo(new FollowEvent.Idle());

    append(log, new byte[] {EURO[2]});
    FollowEvent.Chunk chunk = (FollowEvent.Chunk) follower.next(NO_WAIT);
    assertThat(chunk.offset()).isEqualTo(2);
    assertThat(chunk.bytes()).isEqualTo(EURO);
  }

  @Test
  void aHeldSequenceGoesOutRawOnceHoldBackHasPassed() throws Exception {
    append(log, new byte[] {EURO[0], EURO[1]});
    OutputFollower follower = new OutputFollower(log, 0, 1024, Duration.ofMillis(30));

    long started = System.nanoTime();
    FollowEvent event = follower.next(LONG);

    assertThat(chunkBytes(event)).isEqualTo(new byte[] {EURO[0], EURO[1]});
    assertThat(System.nanoTime() - started)
        .isBetween(Duration.ofMillis(30).toNanos(), Duration.ofSeconds(5).toNanos());
  }

  @Test
  void holdBackCountsFromWhenTheFollowerFirstSawTheSequence() throws Exception {
    append(log, new byte[] {EURO[0]});
    OutputFollower follower = new OutputFollower(log, 0, 1024, Duration.ofMillis(200));

    assertThat(follower.next(Duration.ofMillis(80))).isEqualTo(new FollowEvent.Idle());
    assertThat(follower.next(Duration.ofMillis(80))).isEqualTo(new FollowEvent.Idle());
    long started = System.nanoTime();
    FollowEvent event = follower.next(LONG);

    assertThat(event).isInstanceOf(FollowEvent.Chunk.class);
    assertThat(System.nanoTime() - started).isLessThan(Duration.ofMillis(190).toNanos());
  }

  @Test
  void invalidBytesAreNeverHeld() throws Exception {
    byte[] invalid = {'a', (byte) 0xE0, (byte) 0x80, 'b', (byte) 0xFF};
    append(log, invalid);
    OutputFollower follower = new OutputFollower(log, 0, 1024, LONG);

    assertThat(chunkBytes(follower.next(NO_WAIT))).isEqualTo(invalid);
  }

  @Test
  void aClosedLogSendsItsHeldTailRawAndThenReportsClosedForGood() throws Exception {
    append(log, concat(utf8("x"), new byte[] {EURO[0], EURO[1]}));
    OutputFollower follower = new OutputFollower(log, 0, 1024, LONG);
    assertThat(chunkBytes(follower.next(NO_WAIT))).isEqualTo(utf8("x"));
    log.close();

    assertThat(chunkBytes(follower.next(LONG))).isEqualTo(new byte[] {EURO[0], EURO[1]});
    assertThat(follower.next(LONG)).isEqualTo(new FollowEvent.Closed());
    assertThat(follower.next(LONG)).isEqualTo(new FollowEvent.Closed());
  }

  @Test
  void closingTheLogWakesAWaitingFollower() throws Exception {
    OutputFollower follower = new OutputFollower(log, 0, 1024, LONG);
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<FollowEvent> waiting = executor.submit(() -> follower.next(LONG));
      Thread.sleep(20);
      log.close();

      assertThat(waiting.get()).isEqualTo(new FollowEvent.Closed());
    }
  }

  @Test
  void aWaitingFollowerReturnsTheNextAppendAtOnce() throws Exception {
    OutputFollower follower = new OutputFollower(log, 0, 1024, LONG);
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<FollowEvent> waiting = executor.submit(() -> follower.next(LONG));
      Thread.sleep(20);
      append(log, utf8("late"));

      assertThat(chunkBytes(waiting.get())).isEqualTo(utf8("late"));
    }
  }

  @Test
  void aCursorPastTheEndIsResetToTheEndAndFollowsOnFromThere() throws Exception {
    append(log, utf8("abc"));
    OutputFollower follower = new OutputFollower(log, 10, 1024, LONG);

    assertThat(follower.next(NO_WAIT)).isEqualTo(new FollowEvent.Reset(3));
    assertThat(follower.cursor()).isEqualTo(3);
    append(log, utf8("d"));
    FollowEvent.Chunk chunk = (FollowEvent.Chunk) follower.next(NO_WAIT);
    assertThat(chunk.offset()).isEqualTo(3);
    assertThat(chunk.bytes()).isEqualTo(utf8("d"));
  }

  @Test
  void aCursorThatFellOffTheHeadIsResetToTheEnd() throws Exception {
    log.close();
    log = OutputLog.open(dir.resolve("capped"), 64 * 1024, 64 * 1024, clock);
    append(log, pattern(0, 200_000));
    OutputFollower follower = new OutputFollower(log, 5, 1024, LONG);

    assertThat(follower.next(NO_WAIT)).isEqualTo(new FollowEvent.Reset(200_000));
    assertThat(follower.next(NO_WAIT)).isEqualTo(new FollowEvent.Idle());
  }

  @Test
  void aFollowerOvertakenByTheHeadWhileFollowingIsResetToTheEnd() throws Exception {
    log.close();
    log = OutputLog.open(dir.resolve("capped"), 64 * 1024, 64 * 1024, clock);
    append(log, pattern(0, 100));
    OutputFollower follower = new OutputFollower(log, 0, 10, LONG);
    assertThat(follower.next(NO_WAIT)).isInstanceOf(FollowEvent.Chunk.class);

    append(log, pattern(100, 300_000));

    assertThat(follower.next(NO_WAIT)).isEqualTo(new FollowEvent.Reset(300_100));
  }

  @Test
  void aFollowerNeedsAUsableCursorChunkSizeAndHoldBack() {
    assertThatThrownBy(() -> new OutputFollower(log, -1, 10, LONG))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OutputFollower(log, 0, 0, LONG))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OutputFollower(log, 0, 10, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static byte[] chunkBytes(FollowEvent event) {
    assertThat(event).isInstanceOf(FollowEvent.Chunk.class);
    return ((FollowEvent.Chunk) event).bytes();
  }

  private static boolean decodesStrictly(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
