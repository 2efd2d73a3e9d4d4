package dev.berth.agent.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ControlLeaseTest {
  private static final Duration TTL = Duration.ofSeconds(60);
  private static final Duration GRACE = Duration.ofMinutes(30);

  private final MutableClock clock = MutableClock.at("2030-01-01T00:00:00Z");
  private final FakeNanos nanos = new FakeNanos();
  private final AtomicInteger stops = new AtomicInteger();
  private final List<String> events = new CopyOnWriteArrayList<>();

  private ControlLease lease(DisconnectPolicy policy, Optional<Duration> maxLifetime) {
    return new ControlLease(
        clock,
        nanos,
        policy,
        GRACE,
        maxLifetime,
        () -> {
          stops.incrementAndGet();
          events.add("stop");
        },
        reason -> events.add("reason " + reason));
  }

  private ControlLease lease(DisconnectPolicy policy) {
    return lease(policy, Optional.empty());
  }

  private void advance(Duration by) {
    clock.advance(by);
    nanos.advance(by);
  }

  @Test
  void aLeaseThatWasNeverGrantedNeverExpires() {
    var lease = lease(DisconnectPolicy.STOP);

    advance(Duration.ofDays(3650));
    lease.tick();

    assertThat(lease.state()).isEqualTo(new LeaseState.None());
    assertThat(lease.admitting()).isTrue();
    assertThat(lease.stopReason()).isEmpty();
    assertThat(stops).hasValue(0);
  }

  @Test
  void renewGrantsTheLeaseUntilNowPlusTtl() {
    var lease = lease(DisconnectPolicy.STOP);

    Instant expiresAt = lease.renew(TTL);

    assertThat(expiresAt).isEqualTo(clock.instant().plus(TTL));
    assertThat(lease.state()).isEqualTo(new LeaseState.Held(expiresAt));
    assertThat(lease.state().label()).isEqualTo("held");
    assertThat(lease.state().expiresAt()).contains(expiresAt);
  }

  @Test
  void theStopPolicyStopsAtExpiryExactlyAndNotATickBefore() {
    var lease = lease(DisconnectPolicy.STOP);
    Instant expiresAt = lease.renew(TTL);

    advance(TTL.minusMillis(1));
    lease.tick();
    assertThat(stops).hasValue(0);
    assertThat(lease.admitting()).isTrue();

    advance(Duration.ofMillis(1));
    lease.tick();
    assertThat(stops).hasValue(1);
    assertThat(lease.stopReason()).contains(ControlLease.LEASE_EXPIRED);
    assertThat(lease.state()).isEqualTo(new LeaseState.Expired(expiresAt));
    assertThat(lease.admitting()).isFalse();
  }

  @Test
  void theContinuePolicyKeepsTheWorkloadForTheGraceThenStopsItOnce() {
    var lease = lease(DisconnectPolicy.CONTINUE);
    lease.renew(TTL);

    advance(TTL);
    lease.tick();
    assertThat(lease.admitting()).isFalse();
    assertThat(stops).hasValue(0);

    advance(GRACE.minusMillis(1));
    lease.tick();
    assertThat(stops).hasValue(0);

    advance(Duration.ofMillis(1));
    lease.tick();
    advance(Duration.ofMinutes(5));
    lease.tick();
    assertThat(stops).hasValue(1);
    assertThat(lease.stopReason()).contains(ControlLease.LEASE_EXPIRED);
  }

  @Test
  void aRenewalBeforeExpiryExtendsTheLease() {
    var lease = lease(DisconnectPolicy.STOP);
    lease.renew(TTL);
    advance(Duration.ofSeconds(50));

    Instant extended = lease.renew(TTL);
    advance(Duration.ofSeconds(20));
    lease.tick();

    assertThat(extended).isEqualTo(clock.instant().plusSeconds(40));
    assertThat(lease.state()).isEqualTo(new LeaseState.Held(extended));
    assertThat(stops).hasValue(0);
  }

  @Test
  void admissionClosesAtExpiryAndReopensOnRenewalWhileTheWorkloadRuns() {
    var lease = lease(DisconnectPolicy.CONTINUE);
    Instant expiresAt = lease.renew(TTL);
    advance(TTL);

    assertThat(lease.admitting()).isFalse();
    assertThatThrownBy(lease::checkAdmitting)
        .isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining("expired at " + expiresAt)
        .hasMessageContaining("continue")
        .hasMessageContaining("renew the lease")
        .satisfies(
            e ->
                assertThat(((LeaseExpiredException) e).reason())
                    .isEqualTo(dev.berth.protocol.problem.AgentReason.LEASE_EXPIRED));

    lease.renew(TTL);
    assertThat(lease.admitting()).isTrue();
    lease.checkAdmitting();

    advance(GRACE.minus(Duration.ofSeconds(1)));
    lease.renew(TTL);
    advance(Duration.ofSeconds(30));
    lease.tick();
    assertThat(stops).as("the grace restarts from the renewed expiry").hasValue(0);
  }

  @Test
  void aRenewalAfterTheStopReopensAdmissionButRestartsNothing() {
    var lease = lease(DisconnectPolicy.STOP);
    lease.renew(TTL);
    advance(TTL);
    lease.tick();

    lease.renew(TTL);
    lease.tick();

    assertThat(lease.admitting()).isTrue();
    assertThat(lease.stopReason()).contains(ControlLease.LEASE_EXPIRED);
    assertThat(stops).hasValue(1);
  }

  @Test
  void theMaximumLifetimeStopsTheWorkloadWhateverTheLeaseSays() {
    var held = lease(DisconnectPolicy.CONTINUE, Optional.of(Duration.ofHours(1)));
    for (int i = 0; i < 5; i++) {
      held.renew(TTL);
      advance(Duration.ofMinutes(12).minusNanos(1));
      held.tick();
    }
    assertThat(stops).hasValue(0);

    held.renew(TTL);
    advance(Duration.ofNanos(5));
    held.tick();

    assertThat(stops).hasValue(1);
    assertThat(held.stopReason()).contains(ControlLease.MAX_LIFETIME_EXCEEDED);
    assertThat(events).containsExactly("reason MAX_LIFETIME_EXCEEDED", "stop");
  }

  @Test
  void theMaximumLifetimeAppliesToASessionThatNeverHadALease() {
    var lease = lease(DisconnectPolicy.CONTINUE, Optional.of(Duration.ofMinutes(10)));

    advance(Duration.ofMinutes(10));
    lease.tick();

    assertThat(lease.stopReason()).contains(ControlLease.MAX_LIFETIME_EXCEEDED);
    assertThat(lease.state()).isEqualTo(new LeaseState.None());
  }

  @Test
  void aWallClockJumpNeitherExtendsNorCutsTheMaximumLifetime() {
    var lease = lease(DisconnectPolicy.CONTINUE, Optional.of(Duration.ofHours(1)));

    clock.advance(Duration.ofDays(2));
    nanos.advance(Duration.ofMinutes(10));
    lease.tick();
    assertThat(stops).as("a forward jump does not cut the lifetime").hasValue(0);

    clock.advance(Duration.ofDays(-30));
    nanos.advance(Duration.ofMinutes(50));
    lease.tick();
    assertThat(stops).as("a backward jump does not extend the lifetime").hasValue(1);
    assertThat(lease.stopReason()).contains(ControlLease.MAX_LIFETIME_EXCEEDED);
  }

  @Test
  void theWorkloadIsStoppedOnceUnderConcurrentTicks() throws Exception {
    var lease = lease(DisconnectPolicy.STOP, Optional.of(Duration.ofMinutes(1)));
    lease.renew(TTL);
    advance(TTL);
    var start = new CountDownLatch(1);

    List<Future<?>> tickers = new ArrayList<>();
    try (var pool = Executors.newFixedThreadPool(8)) {
      for (int t = 0; t < 8; t++) {
        tickers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < 200; i++) {
                    lease.tick();
                  }
                  return null;
                }));
      }
      start.countDown();
      pool.shutdown();
      assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    for (Future<?> ticker : tickers) {
      ticker.get(); // a tick that threw fails the test
    }

    assertThat(stops).hasValue(1);
  }

  @Test
  void theStopReasonIsToldBeforeTheWorkloadStops() {
    var lease = lease(DisconnectPolicy.STOP);
    lease.renew(TTL);
    advance(TTL);

    lease.tick();

    assertThat(events).containsExactly("reason LEASE_EXPIRED", "stop");
  }

  @Test
  void aFailingStopIsNotRetriedByLaterTicks() {
    var calls = new AtomicInteger();
    var lease =
        new ControlLease(
            clock,
            DisconnectPolicy.STOP,
            GRACE,
            Optional.empty(),
            () -> {
              calls.incrementAndGet();
              throw new IllegalStateException("kill failed");
            });
    lease.renew(TTL);
    clock.advance(TTL);

    assertThatThrownBy(lease::tick).hasMessage("kill failed");
    lease.tick();

    assertThat(calls).hasValue(1);
    assertThat(lease.stopReason()).contains(ControlLease.LEASE_EXPIRED);
  }

  @Test
  void theScheduleTicksPeriodicallyAndSurvivesAFailingTick() {
    var ticks = new AtomicInteger();
    var lease =
        new ControlLease(
            clock,
            nanos,
            DisconnectPolicy.STOP,
            GRACE,
            Optional.empty(),
            () -> {
              throw new IllegalStateException("kill failed");
            },
            reason -> ticks.incrementAndGet());
    lease.renew(TTL);
    clock.advance(TTL);
    var executor = Executors.newSingleThreadScheduledExecutor();
    try {
      var future = ControlLease.schedule(lease, executor, Duration.ofMillis(5));

      await().atMost(Duration.ofSeconds(2)).until(() -> lease.stopReason().isPresent());
      int readsAfterStop = clock.reads();
      await().atMost(Duration.ofSeconds(2)).until(() -> clock.reads() > readsAfterStop + 3);

      assertThat(future.isDone()).isFalse();
      assertThat(ticks).hasValue(1);
      future.cancel(false);
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void aTtlOutsideOneSecondToOneHourIsRefusedNamingTheValue() {
    var lease = lease(DisconnectPolicy.STOP);

    assertThatThrownBy(() -> lease.renew(Duration.ofMillis(999)))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("between 1 s and 3600 s")
        .hasMessageContaining("999 ms");
    assertThatThrownBy(() -> lease.renew(Duration.ofHours(1).plusMillis(1)))
        .isInstanceOf(InvalidValueException.class);
    assertThat(lease.state()).isEqualTo(new LeaseState.None());

    lease.renew(Duration.ofSeconds(1));
    lease.renew(Duration.ofHours(1));
  }

  @Test
  void theSettingsAreValidated() {
    assertThatThrownBy(
            () ->
                new ControlLease(
                    clock,
                    DisconnectPolicy.STOP,
                    Duration.ofSeconds(-1),
                    Optional.empty(),
                    () -> {}))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("disconnect grace");
    assertThatThrownBy(
            () ->
                new ControlLease(
                    clock, DisconnectPolicy.STOP, GRACE, Optional.of(Duration.ZERO), () -> {}))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("max lifetime");
  }

  @Test
  void theDisconnectPolicyParsesContinueAndStop() {
    assertThat(DisconnectPolicy.parse("continue")).isEqualTo(DisconnectPolicy.CONTINUE);
    assertThat(DisconnectPolicy.parse(" STOP ")).isEqualTo(DisconnectPolicy.STOP);
    assertThat(DisconnectPolicy.STOP.label()).isEqualTo("stop");
    assertThatThrownBy(() -> DisconnectPolicy.parse("pause"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("\"continue\" or \"stop\"")
        .hasMessageContaining("\"pause\"");
    assertThatThrownBy(() -> DisconnectPolicy.parse(null)).hasMessageContaining("absent");
  }
}
