package dev.berth.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.SessionId;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The installation-wide audit log ({@link InstallationAudit}), run against every store that keeps
 * one: every session's entries in one order, which a reader can follow page after page without
 * missing an entry appended meanwhile.
 */
public abstract class InstallationAuditContract<S extends SessionStore & InstallationAudit> {

  protected MutableClock clock;
  protected S store;

  /** A fresh, empty store. */
  protected abstract S newStore(MutableClock clock) throws Exception;

  /** Frees what {@link #newStore} allocated. */
  protected void closeStore(S s) throws Exception {}

  @BeforeEach
  void setUpStore() throws Exception {
    clock = MutableClock.at("2026-12-03T10:00:00Z");
    store = newStore(clock);
  }

  @AfterEach
  void tearDownStore() throws Exception {
    closeStore(store);
  }

  private AuditEvent append(SessionId session, String type) {
    return store.append(AuditEvent.of(session, clock.instant(), "tester", type, "detail"));
  }

  @Test
  void listsEverySessionsEntriesInTheOrderTheyWereAppendedAndPagesOnFromASequence() {
    SessionId a = TestSessions.newId();
    SessionId b = TestSessions.newId();
    List<AuditEvent> appended =
        List.of(
            append(a, "test.one"),
            append(b, "test.two"),
            append(a, "test.three"),
            append(b, "test.four"));

    assertThat(store.allEvents(0, 100)).containsExactlyElementsOf(appended);
    assertThat(store.allEvents(appended.get(0).sequence(), 2))
        .containsExactlyElementsOf(appended.subList(1, 3));
    assertThat(store.allEvents(appended.get(3).sequence(), 100)).isEmpty();
    assertThat(store.allEvents(0, 0)).isEmpty();
  }

  @Test
  void refusesANegativeLimit() {
    assertThatThrownBy(() -> store.allEvents(0, -1)).isInstanceOf(InvalidValueException.class);
  }

  @Test
  void aReaderFollowingTheLogWhileSessionsAppendAtOnceMissesNoEntry() throws Exception {
    int writers = 6;
    int each = 20;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    AtomicBoolean writing = new AtomicBoolean(true);
    try {
      Future<Set<Long>> reader =
          pool.submit(
              () -> {
                Set<Long> seen = new HashSet<>();
                long after = 0;
                // One more pass after the writers stop, to read what the last of them appended.
                for (boolean last = false; ; last = !writing.get()) {
                  List<AuditEvent> page = store.allEvents(after, 7);
                  for (AuditEvent event : page) {
                    seen.add(event.sequence());
                    after = event.sequence();
                  }
                  if (last && page.isEmpty()) {
                    return seen;
                  }
                }
              });
      List<Future<List<Long>>> appends = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        SessionId session = TestSessions.newId();
        appends.add(
            pool.submit(
                () -> {
                  List<Long> sequences = new ArrayList<>();
                  for (int i = 0; i < each; i++) {
                    sequences.add(append(session, "test.event").sequence());
                  }
                  return sequences;
                }));
      }
      Set<Long> all = new HashSet<>();
      for (Future<List<Long>> done : appends) {
        all.addAll(done.get(60, TimeUnit.SECONDS));
      }
      writing.set(false);

      assertThat(reader.get(60, TimeUnit.SECONDS)).isEqualTo(all).hasSize(writers * each);
    } finally {
      writing.set(false);
      pool.shutdownNow();
    }
  }
}
