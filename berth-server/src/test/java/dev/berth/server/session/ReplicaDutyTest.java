package dev.berth.server.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.testing.MutableClock;
import dev.berth.server.store.sql.SqlDuties;
import dev.berth.server.store.sql.SqlSessionStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two replicas' turns at one duty on a real SQLite store (the clock moved by the test): only the
 * holder works, a holder that stops is replaced once three periods have passed, and one that shuts
 * down (releasing the duty) is replaced at the other's next turn.
 */
class ReplicaDutyTest {
  private static final Duration PERIOD = Duration.ofSeconds(10);

  @TempDir Path dir;
  private final MutableClock clock = MutableClock.at("2026-12-03T10:00:00Z");
  private final List<String> work = new ArrayList<>();
  private SqlSessionStore store;
  private ReplicaDuty a;
  private ReplicaDuty b;

  @BeforeEach
  void open() {
    store = SqlSessionStore.openSqlite(dir.resolve("berth.db"), clock);
    a = new ReplicaDuty(SqlDuties.sharing(store, clock), "idle-scan", "replica-a", PERIOD);
    b = new ReplicaDuty(SqlDuties.sharing(store, clock), "idle-scan", "replica-b", PERIOD);
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void onlyTheReplicaHoldingTheDutyDoesTheWorkTurnAfterTurn() {
    for (int turn = 0; turn < 5; turn++) {
      a.perform(() -> work.add("a"));
      b.perform(() -> work.add("b"));
      clock.advance(PERIOD);
    }

    assertThat(work).containsOnly("a").hasSize(5);
  }

  @Test
  void aHolderThatStopsIsReplacedOnceThreePeriodsHavePassedAndNotBefore() {
    assertThat(a.perform(() -> work.add("a"))).isTrue();

    clock.advance(PERIOD.multipliedBy(ReplicaDuty.PERIODS).minusSeconds(1));
    assertThat(b.perform(() -> work.add("b"))).isFalse();
    clock.advance(Duration.ofSeconds(1));
    assertThat(b.perform(() -> work.add("b"))).isTrue();

    assertThat(a.perform(() -> work.add("a"))).as("the old holder came back").isFalse();
    assertThat(work).containsExactly("a", "b");
  }

  @Test
  void aHolderThatShutsDownIsReplacedAtTheOtherReplicasNextTurn() {
    assertThat(a.perform(() -> work.add("a"))).isTrue();
    assertThat(b.perform(() -> work.add("b"))).isFalse();

    a.release();
    clock.advance(PERIOD);

    assertThat(b.perform(() -> work.add("b"))).as("no need to wait out the duty").isTrue();
    assertThat(work).containsExactly("a", "b");
  }
}
