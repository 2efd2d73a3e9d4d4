package dev.berth.server.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.session.Session;
import dev.berth.core.testing.InMemorySessionStore;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SessionSignalsTest {

  private final MutableClock clock = MutableClock.at("2026-11-29T12:00:00Z");
  private final InMemorySessionStore store = new InMemorySessionStore(clock);
  private final SessionSignals signals = new SessionSignals(store);

  @Test
  void aWaiterSeesTheSessionChangeTheWayItWaitsFor() throws Exception {
    Session s = store.create(TestSessions.requested(clock.instant()));
    java.time.Instant later = clock.instant().plusSeconds(5);
    CompletableFuture<Optional<Session>> waiting =
        CompletableFuture.supplyAsync(
            () ->
                signals.await(
                    s.id(),
                    x -> !x.activity().lastAccess().isBefore(later),
                    Duration.ofSeconds(10)));

    store.touch(s.id(), later);
    signals.changed(s.id());

    assertThat(waiting.get(10, TimeUnit.SECONDS))
        .hasValueSatisfying(r -> assertThat(r.activity().lastAccess()).isEqualTo(later));
  }

  @Test
  void nothingIsKeptForASessionOnceNobodyWaitsForIt() throws Exception {
    Session s = store.create(TestSessions.requested(clock.instant()));
    CompletableFuture<Optional<Session>> first =
        CompletableFuture.supplyAsync(
            () -> signals.await(s.id(), x -> false, Duration.ofMillis(300)));
    CompletableFuture<Optional<Session>> second =
        CompletableFuture.supplyAsync(
            () -> signals.await(s.id(), x -> false, Duration.ofMillis(600)));

    assertThat(first.get(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(second.get(10, TimeUnit.SECONDS)).isEmpty();

    assertThat(signals.watched()).isZero();
  }
}
