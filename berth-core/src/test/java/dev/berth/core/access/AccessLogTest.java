package dev.berth.core.access;

import static dev.berth.core.access.AccessFixture.AS_ACME;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.session.Session;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AccessLogTest {

  private final AccessFixture f = new AccessFixture();
  private final AccessLog log = new AccessLog(f.store, Duration.ofSeconds(1));

  private Instant stored(Session s) {
    return f.get(s.id()).activity().lastAccess();
  }

  @Test
  void theFirstAccessIsWrittenAtOnceAndTheNextWithinTheIntervalIsKept() {
    Session s = f.ready();
    Instant first = f.clock.advance(Duration.ofSeconds(10));

    assertThat(log.accessed(s.id(), first)).isTrue();
    Instant second = f.clock.advance(Duration.ofMillis(300));
    assertThat(log.accessed(s.id(), second)).isFalse();

    assertThat(stored(s)).isEqualTo(first);
    assertThat(log.withPending(f.get(s.id())).activity().lastAccess()).isEqualTo(second);
  }

  @Test
  void aKeptAccessIsWrittenOnceItsIntervalHasPassed() {
    Session s = f.ready();
    Instant first = f.clock.advance(Duration.ofSeconds(10));
    log.accessed(s.id(), first);
    Instant kept = f.clock.advance(Duration.ofMillis(400));
    log.accessed(s.id(), kept);

    log.flushDue(f.clock.advance(Duration.ofMillis(300)));
    assertThat(stored(s)).isEqualTo(first);
    log.flushDue(f.clock.advance(Duration.ofMillis(400)));

    assertThat(stored(s)).isEqualTo(kept);
  }

  @Test
  void aFlushWritesEveryKeptAccessAtOnce() {
    Session a = f.ready();
    Session b = f.ready();
    Instant now = f.clock.advance(Duration.ofSeconds(10));
    log.accessed(a.id(), now);
    log.accessed(b.id(), now);
    Instant later = f.clock.advance(Duration.ofMillis(10));
    log.accessed(a.id(), later);
    log.accessed(b.id(), later);

    log.flush();

    assertThat(stored(a)).isEqualTo(later);
    assertThat(stored(b)).isEqualTo(later);
  }

  @Test
  void anAccessAfterAQuietIntervalIsWrittenAtOnceWithTheNewestTime() {
    Session s = f.ready();
    log.accessed(s.id(), f.clock.advance(Duration.ofSeconds(10)));
    log.accessed(s.id(), f.clock.advance(Duration.ofMillis(500)));

    Instant after = f.clock.advance(Duration.ofSeconds(2));
    assertThat(log.accessed(s.id(), after)).isTrue();

    assertThat(stored(s)).isEqualTo(after);
  }

  @Test
  void theIntervalStaysWellBelowShortIdleThresholds() {
    assertThat(AccessLog.intervalFor(Duration.ofMinutes(5))).isEqualTo(Duration.ofSeconds(1));
    assertThat(AccessLog.intervalFor(Duration.ofSeconds(2))).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void aBurstOfReadsCostsOneWriteAndEachAnswerShowsItsOwnAccess() {
    f.accesses = log;
    Session s = f.ready();
    f.clock.advance(Duration.ofSeconds(10));
    Instant firstWrite = null;
    for (int i = 0; i < 5; i++) {
      Instant now = f.clock.advance(Duration.ofMillis(100));
      firstWrite = firstWrite == null ? now : firstWrite;

      MakeActive.Activation a = f.makeActive().activate(AS_ACME, s.id(), "read", "tester");

      assertThat(a.session().activity().lastAccess()).isEqualTo(now);
    }
    assertThat(stored(s)).isEqualTo(firstWrite);
  }

  @Test
  void aWrittenAccessReadsTheSessionAgainAndWinsOverAnIdleSuspendWrittenMeanwhile() {
    Session s = f.ready();
    f.passIdleThreshold();
    // The idle policy's intent lands between this access's first read and its write.
    f.store.beforeTouch(
        id -> {
          f.store.beforeTouch(again -> {});
          f.idlePolicyAsksToSuspend(id);
        });
    f.accesses = log;

    MakeActive.Activation a = f.makeActive().activate(AS_ACME, s.id(), "read", "tester");

    assertThat(a.path()).isEqualTo("idle->active->read");
    assertThat(a.session().intent().desired())
        .isEqualTo(dev.berth.core.session.DesiredState.RUNNING);
  }

  @Test
  void terminalInputThatIsWrittenTakesBackAnIdleSuspendItFinds() {
    Session s = f.ready();
    f.passIdleThreshold();
    f.idlePolicyAsksToSuspend(s.id());

    f.makeActive().accessed(s.id(), "typist");

    Session after = f.get(s.id());
    assertThat(after.intent().desired()).isEqualTo(dev.berth.core.session.DesiredState.RUNNING);
    assertThat(after.intent().requestedBy()).isEqualTo("typist");
    assertThat(f.enqueued).contains(s.id());
  }

  @Test
  void anAccessWhoseWriteFailedIsWrittenByTheNextAccessNotKept() {
    Session s = f.ready();
    f.store.beforeTouch(
        id -> {
          f.store.beforeTouch(again -> {});
          throw new IllegalStateException("the store is busy");
        });
    Instant failed = f.clock.advance(Duration.ofSeconds(10));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> log.accessed(s.id(), failed))
        .hasMessageContaining("busy");

    Instant next = f.clock.advance(Duration.ofMillis(100));

    assertThat(log.accessed(s.id(), next)).isTrue();
    assertThat(stored(s)).isEqualTo(next);
  }

  @Test
  void aKeptAccessWhoseFlushFailedIsWrittenByTheNextFlush() {
    Session s = f.ready();
    log.accessed(s.id(), f.clock.advance(Duration.ofSeconds(10)));
    Instant kept = f.clock.advance(Duration.ofMillis(100));
    log.accessed(s.id(), kept);
    f.store.beforeTouch(
        id -> {
          f.store.beforeTouch(again -> {});
          throw new IllegalStateException("the store is busy");
        });
    org.assertj.core.api.Assertions.assertThatThrownBy(log::flush).hasMessageContaining("busy");

    log.flushDue(f.clock.advance(Duration.ofMillis(10)));

    assertThat(stored(s)).isEqualTo(kept);
  }
}
