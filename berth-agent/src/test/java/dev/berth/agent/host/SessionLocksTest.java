package dev.berth.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.SessionId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class SessionLocksTest {

  private final SessionLocks locks = new SessionLocks();
  private final SessionId session = SessionId.generate(RandomGenerator.getDefault());

  @Test
  void concurrentHoldersOfOneSessionNeverRunTogetherAndLeaveNoLockBehind() throws Exception {
    int threads = 8;
    int rounds = 300;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger mostInside = new AtomicInteger();
    int[] unguarded = new int[1];
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int r = 0; r < rounds; r++) {
                    locks.locked(
                        session,
                        () -> {
                          mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                          int seen = unguarded[0];
                          // Widens the window in which a second holder would read the same value.
                          java.util.concurrent.locks.LockSupport.parkNanos(1_000);
                          unguarded[0] = seen + 1;
                          inside.decrementAndGet();
                          return null;
                        });
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> each : done) {
        each.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(mostInside).hasValue(1);
    // A read-modify-write that two holders ran together would have lost an increment.
    assertThat(unguarded[0]).isEqualTo(threads * rounds);
    assertThat(locks.size()).isZero();
  }

  @Test
  void aSessionsLockStaysWhileSomeoneWaitsForItAndGoesWithTheLastHolder() throws Exception {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> holder =
          pool.submit(
              () ->
                  locks.locked(
                      session,
                      () -> {
                        held.countDown();
                        await(release);
                        return null;
                      }));
      held.await();
      Future<String> waiter = pool.submit(() -> locks.locked(session, () -> "after"));
      Thread.sleep(100);

      assertThat(waiter).isNotDone();
      assertThat(locks.size()).isEqualTo(1);

      release.countDown();
      holder.get(10, TimeUnit.SECONDS);
      assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo("after");
    } finally {
      pool.shutdownNow();
    }
    assertThat(locks.size()).isZero();
  }

  @Test
  void aSessionDoesNotWaitForAnotherSessionsHolder() throws Exception {
    SessionId other = SessionId.generate(RandomGenerator.getDefault());
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      CountDownLatch held = new CountDownLatch(1);
      Future<?> holder =
          pool.submit(
              () ->
                  locks.locked(
                      session,
                      () -> {
                        held.countDown();
                        await(release);
                        return null;
                      }));
      held.await();

      assertThat(locks.locked(other, () -> "ran")).isEqualTo("ran");
      assertThat(locks.size()).isEqualTo(1);

      release.countDown();
      holder.get(10, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(locks.size()).isZero();
  }

  @Test
  void aHolderTakesItsOwnSessionsLockAgainAndAFailingActionStillLetsGo() {
    String nested =
        locks.locked(
            session,
            () -> {
              assertThat(locks.size()).isEqualTo(1);
              return locks.locked(session, () -> "nested");
            });
    assertThat(nested).isEqualTo("nested");

    assertThatThrownBy(
            () ->
                locks.locked(
                    session,
                    () -> {
                      throw new IllegalStateException("the action failed");
                    }))
        .hasMessage("the action failed");
    assertThat(locks.size()).isZero();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
