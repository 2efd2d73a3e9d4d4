package dev.berth.server.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.error.VersionConflictException;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.Session;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Races over two stores on one database, as two processes sharing a SQLite file or two replicas
 * sharing PostgreSQL run them: many threads start at once, and the test counts the winners.
 */
final class TwoStoreRace {

  private TwoStoreRace() {}

  /**
   * Ten rounds in which eight threads, half on each store, race for one new session's lease and for
   * a compare-and-swap of it at version 1: exactly one lease holder and one writer win each.
   */
  static void oneWriterAndOneLeaseHolderWinEachRound(
      SqlSessionStore a, SqlSessionStore b, MutableClock clock, Duration ttl) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      for (int round = 0; round < 10; round++) {
        Session s = a.create(TestSessions.requested(clock.instant()));
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> leases = new ArrayList<>();
        List<Future<Boolean>> writes = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
          SqlSessionStore store = w % 2 == 0 ? a : b;
          String holder = "holder-" + w;
          leases.add(
              pool.submit(
                  () -> {
                    start.await();
                    return store.leases().acquire(s.id(), holder, ttl).isPresent();
                  }));
          writes.add(
              pool.submit(
                  () -> {
                    start.await();
                    try {
                      store.compareAndSet(
                          s.withIntent(DesiredState.SUSPENDED, clock.instant(), holder, "race"), 1);
                      return true;
                    } catch (VersionConflictException lost) {
                      return false;
                    }
                  }));
        }
        start.countDown();
        assertThat(winners(leases)).as("lease holders in round %d", round).isEqualTo(1);
        assertThat(winners(writes)).as("winning writers in round %d", round).isEqualTo(1);
        assertThat(b.get(s.id()).orElseThrow().version()).isEqualTo(2);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** How many of {@code attempts} answered true, once all have ended. */
  static int winners(List<Future<Boolean>> attempts) throws Exception {
    int won = 0;
    for (Future<Boolean> f : attempts) {
      won += f.get() ? 1 : 0;
    }
    return won;
  }
}
