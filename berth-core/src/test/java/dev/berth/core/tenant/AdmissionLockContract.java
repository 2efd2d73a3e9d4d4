package dev.berth.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.TenantId;
import dev.berth.core.testing.MutableClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link AdmissionLock} adapter that excludes other processes must pass,
 * unchanged: an adapter's test extends this class and says how to open the lock as each of several
 * processes sharing one store would.
 */
public abstract class AdmissionLockContract {
  private static final TenantId ACME = new TenantId("acme");
  private static final TenantId BETA = new TenantId("beta");

  protected MutableClock clock;

  /** Prepares a fresh, empty store the locks of {@link #newProcess} share. */
  protected abstract void openStore(MutableClock clock) throws Exception;

  /** The lock as one more process sharing the store would hold it. */
  protected abstract AdmissionLock newProcess() throws Exception;

  /** Frees what {@link #openStore} and {@link #newProcess} allocated. */
  protected void closeStore() throws Exception {}

  @BeforeEach
  void open() throws Exception {
    clock = MutableClock.at("2026-12-05T10:00:00Z");
    openStore(clock);
  }

  @AfterEach
  void close() throws Exception {
    closeStore();
  }

  @Test
  void theWorkRunsAndItsResultIsAnswered() throws Exception {
    assertThat(newProcess().holding(ACME, () -> "admitted")).isEqualTo("admitted");
  }

  @Test
  void theWorkOfProcessesAdmittingOneTenantNeverOverlaps() throws Exception {
    int processes = 4;
    int each = 5;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(processes);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> runs = new ArrayList<>();
      for (int p = 0; p < processes; p++) {
        AdmissionLock lock = newProcess();
        runs.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < each; i++) {
                    lock.holding(
                        ACME,
                        () -> {
                          most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                          sleep(2);
                          inside.decrementAndGet();
                          return done.incrementAndGet();
                        });
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> run : runs) {
        run.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(done.get()).isEqualTo(processes * each);
    assertThat(most.get()).as("admissions of one tenant at once").isEqualTo(1);
  }

  @Test
  void anotherTenantIsAdmittedWhileOneIsHeld() throws Exception {
    AdmissionLock first = newProcess();
    AdmissionLock second = newProcess();
    String admitted = first.holding(ACME, () -> second.holding(BETA, () -> "beta admitted"));
    assertThat(admitted).isEqualTo("beta admitted");
  }

  @Test
  void workThatFailsReleasesTheLockForTheNextProcess() throws Exception {
    AdmissionLock first = newProcess();
    assertThatThrownBy(
            () ->
                first.holding(
                    ACME,
                    () -> {
                      throw new IllegalStateException("quota exceeded");
                    }))
        .hasMessage("quota exceeded");

    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      AdmissionLock second = newProcess();
      Future<String> next = pool.submit(() -> second.holding(ACME, () -> "next admitted"));
      assertThat(next.get(10, TimeUnit.SECONDS)).isEqualTo("next admitted");
    } finally {
      pool.shutdownNow();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
