package dev.berth.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Duties} adapter must pass, unchanged: an adapter's test extends this
 * class and says how to build a fresh adapter that judges expiry by the given clock.
 */
public abstract class DutiesContract {
  private static final Duration TTL = Duration.ofSeconds(30);

  protected MutableClock clock;
  private Duties duties;

  /** A fresh adapter with no duty held, judging expiry by {@code clock}. */
  protected abstract Duties newDuties(MutableClock clock) throws Exception;

  /** Frees what {@link #newDuties} allocated. */
  protected void closeDuties(Duties d) throws Exception {}

  @BeforeEach
  void open() throws Exception {
    clock = MutableClock.at("2026-12-03T10:00:00Z");
    duties = newDuties(clock);
  }

  @AfterEach
  void close() throws Exception {
    closeDuties(duties);
  }

  @Test
  void theFirstHolderTakesADutyAndAnotherIsRefusedWhileItIsLive() {
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isTrue();

    clock.advance(TTL.minusSeconds(1));
    assertThat(duties.hold("idle-scan", "replica-b", TTL)).isFalse();
  }

  @Test
  void theHolderRenewsItsDutySoItOutlivesItsFirstTimeToLive() {
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isTrue();
    clock.advance(TTL.minusSeconds(1));
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isTrue();

    clock.advance(TTL.minusSeconds(1));
    assertThat(duties.hold("idle-scan", "replica-b", TTL)).isFalse();
  }

  @Test
  void anExpiredDutyIsTakenOverAndItsOldHolderIsRefusedUntilTheNewOneStops() {
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isTrue();
    clock.advance(TTL);

    assertThat(duties.hold("idle-scan", "replica-b", TTL)).isTrue();
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isFalse();

    clock.advance(TTL);
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isTrue();
  }

  @Test
  void aReleasedDutyIsTakenByAnotherHolderAtOnce() {
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isTrue();

    duties.release("idle-scan", "replica-a");

    assertThat(duties.hold("idle-scan", "replica-b", TTL)).isTrue();
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isFalse();
  }

  @Test
  void releasingADutyOneDoesNotHoldChangesNothing() {
    duties.release("idle-scan", "replica-b");
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isTrue();

    duties.release("idle-scan", "replica-b");

    assertThat(duties.hold("idle-scan", "replica-b", TTL)).isFalse();
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isTrue();
  }

  @Test
  void dutiesOfOtherNamesAreHeldApart() {
    assertThat(duties.hold("idle-scan", "replica-a", TTL)).isTrue();

    assertThat(duties.hold("retention", "replica-b", TTL)).isTrue();
    assertThat(duties.hold("retention", "replica-a", TTL)).isFalse();
  }

  @Test
  void ofEightHoldersRacingForAFreeDutyExactlyOneGetsIt() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> tries = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        String holder = "replica-" + i;
        tries.add(
            pool.submit(
                () -> {
                  start.await();
                  return duties.hold("idle-scan", holder, TTL);
                }));
      }
      start.countDown();
      int winners = 0;
      for (Future<Boolean> t : tries) {
        winners += t.get() ? 1 : 0;
      }
      assertThat(winners).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }
}
