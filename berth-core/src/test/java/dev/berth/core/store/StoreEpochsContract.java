package dev.berth.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.session.SessionId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link StoreEpochs} adapter must pass, unchanged: an adapter's test extends
 * this class and says how to build a fresh store's epochs and how to open the same store again.
 */
public abstract class StoreEpochsContract {

  private StoreEpochs epochs;

  /** The epochs of a fresh, empty store. */
  protected abstract StoreEpochs newEpochs() throws Exception;

  /** The epochs of the same store as {@code epochs}, opened again (as a restarted server would). */
  protected abstract StoreEpochs reopen(StoreEpochs epochs) throws Exception;

  /** The session leases of the same store as {@code epochs}. */
  protected abstract SessionLeases leasesOf(StoreEpochs epochs);

  /** Frees what {@link #newEpochs} and {@link #reopen} allocated. */
  protected void closeEpochs() throws Exception {}

  @BeforeEach
  void open() throws Exception {
    epochs = newEpochs();
  }

  @AfterEach
  void close() throws Exception {
    closeEpochs();
  }

  @Test
  void aFreshStoreIsAtEpochZero() {
    assertThat(epochs.current()).isZero();
  }

  @Test
  void eachAdvanceReturnsTheNextEpochAndCurrentReadsIt() {
    assertThat(epochs.advance()).isEqualTo(1);
    assertThat(epochs.advance()).isEqualTo(2);
    assertThat(epochs.current()).isEqualTo(2);
  }

  @Test
  void raisingMovesTheEpochUpButNeverDown() {
    assertThat(epochs.raise(40)).isEqualTo(40);
    assertThat(epochs.raise(7)).isEqualTo(40);
    assertThat(epochs.current()).isEqualTo(40);
    assertThat(epochs.advance()).isEqualTo(41);
  }

  @Test
  void theEpochSurvivesReopeningTheStore() throws Exception {
    epochs.advance();
    epochs.raise(9);

    assertThat(reopen(epochs).current()).isEqualTo(9);
  }

  @Test
  void aLeaseTakenAfterTheEpochWasRaisedGetsATokenAboveEveryEarlierEpochs() {
    SessionLeases leases = leasesOf(epochs);
    SessionId session = new SessionId("5e55104e0c0ffee00000000000000e0c");
    Lease first = leases.acquire(session, "cp-1", Duration.ofMinutes(1)).orElseThrow();
    leases.release(first);

    epochs.raise(5);
    Lease second = leases.acquire(session, "cp-2", Duration.ofMinutes(1)).orElseThrow();

    assertThat(second.token().value()).isGreaterThan(first.token().value());
    assertThat(second.token().value()).isGreaterThan(4L << 32);
    assertThat(second.token()).isEqualTo(FencingToken.next(0, 5));
  }

  @Test
  void recoveryModeIsRecordedKeepsItsFirstStartSurvivesReopeningAndEnds() throws Exception {
    assertThat(epochs.recoverySince()).isEmpty();
    Instant first = Instant.parse("2026-12-05T10:00:00Z");

    assertThat(epochs.beginRecovery(first)).isEqualTo(first);
    assertThat(epochs.beginRecovery(first.plusSeconds(60))).isEqualTo(first);
    StoreEpochs reopened = reopen(epochs);
    assertThat(reopened.recoverySince()).contains(first);

    reopened.endRecovery();
    reopened.endRecovery();
    assertThat(reopened.recoverySince()).isEmpty();
  }

  @Test
  void eightConcurrentAdvancesEachGetADistinctEpoch() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Long>> advances = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        advances.add(
            pool.submit(
                () -> {
                  start.await();
                  return epochs.advance();
                }));
      }
      start.countDown();
      Set<Long> seen = new HashSet<>();
      for (Future<Long> a : advances) {
        seen.add(a.get());
      }
      assertThat(seen).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
      assertThat(epochs.current()).isEqualTo(8);
    } finally {
      pool.shutdownNow();
    }
  }
}
