package dev.berth.agent.host;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.agent.contract.LocalContract;
import dev.berth.core.session.SessionId;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session's contract is open once at a time: its lock is what serializes the session's checks, so
 * two open copies of one file would each let through a command only one should.
 */
class SessionContractsTest {

  @TempDir Path root;

  private final SessionId session = SessionId.generate(RandomGenerator.getDefault());

  private SessionContracts contracts() {
    return new SessionContracts(HostConfig.defaults(root, "t".repeat(64)), Clock.systemUTC());
  }

  @Test
  void whileARuntimeHoldsItsSessionsContractEveryCommandUsesThatSameContract() throws Exception {
    SessionContracts contracts = contracts();
    LocalContract held = contracts.hold(session);
    List<Boolean> same = runConcurrently(() -> contracts.with(session, c -> c == held));

    assertThat(same).containsOnly(true);
    assertThat(contracts.size()).isEqualTo(1);

    contracts.release(session);
    assertThat(contracts.size()).isZero();
  }

  @Test
  void concurrentCommandsWithoutAHolderNeverHaveTwoContractsOfOneSessionOpen() throws Exception {
    SessionContracts contracts = contracts();
    Map<LocalContract, AtomicInteger> inUse = new ConcurrentHashMap<>();
    AtomicInteger mostOpen = new AtomicInteger();

    runConcurrently(
        () ->
            contracts.with(
                session,
                contract -> {
                  inUse.computeIfAbsent(contract, c -> new AtomicInteger()).incrementAndGet();
                  long open = inUse.values().stream().filter(n -> n.get() > 0).count();
                  mostOpen.accumulateAndGet((int) open, Math::max);
                  inUse.get(contract).decrementAndGet();
                  return true;
                }));

    assertThat(mostOpen).hasValue(1);
    assertThat(contracts.size()).isZero();
  }

  /** Runs {@code each} 200 times on each of 8 threads started together; every answer. */
  private static <T> List<T> runConcurrently(java.util.concurrent.Callable<T> each)
      throws Exception {
    int threads = 8;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<T> answers = java.util.Collections.synchronizedList(new ArrayList<>());
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int r = 0; r < 200; r++) {
                    answers.add(each.call());
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> one : done) {
        one.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(answers).hasSize(threads * 200);
    return answers;
  }
}
