package dev.berth.cli.e2e;

import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.berth.cli.e2e.Deployment.Pair;
import dev.berth.cli.e2e.FiveCases.Case;
import dev.berth.cli.e2e.FourColumns.Row;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The five cases of the state model (STATE-MODEL.md §5) end to end, on every store × runtime pair
 * Berth ships: real {@code bin/berth server} processes on SQLite or PostgreSQL (embedded, started
 * once), running sessions on the local node or on Kubernetes (fabric8's mock API server and the
 * kubelet simulator, whose pods run real agents), used through the public API, with faults done to
 * the real processes beneath (SIGKILL, SIGSTOP, a replayed agent command).
 *
 * <p>For each case the four columns (session, operation, reservation, obligations) are asserted
 * separately and written as rows of a table, to the test's output and to {@code
 * target/five-cases.md}, whatever the outcome.
 *
 * <p>The pairs are deployed side by side (each has its own servers, node or simulated cluster, and
 * database), since most of a case is waiting for a server to notice. Within a pair the cases that
 * leave the host alone run together, then those that kill or stop it, one at a time: a stopped
 * local node stops every session on it.
 */
class FiveCasesIT {

  /** Every pair: each store (the ConfigMap store joins in {@link Deployment.Store}) × runtime. */
  static final List<Pair> MATRIX =
      Arrays.stream(Deployment.Store.values())
          .flatMap(s -> Arrays.stream(Deployment.RuntimeKind.values()).map(r -> new Pair(s, r)))
          .toList();

  private static final Duration PAIR_TIMEOUT = Duration.ofMinutes(15);

  /**
   * Pairs deploy one at a time: starting JVMs is what a machine of two cores cannot do four times
   * at once (a server then misses its minute to answer /healthz); the cases mostly wait.
   */
  private static final java.util.concurrent.Semaphore DEPLOYING =
      new java.util.concurrent.Semaphore(1);

  @TempDir static Path work;

  private static final List<Row> ROWS = java.util.Collections.synchronizedList(new ArrayList<>());
  private static final List<CompletableFuture<?>> FINISHED = new ArrayList<>();
  private static final ExecutorService POOL =
      Executors.newCachedThreadPool(
          r -> Thread.ofPlatform().daemon().name("five-cases").unstarted(r));

  @TestFactory
  Stream<DynamicContainer> everyStoreAndRuntimeKeepsTheStateModelsPromisesInTheFiveCases() {
    Map<Pair, Map<Case, CompletableFuture<Void>>> runs = new LinkedHashMap<>();
    for (Pair pair : MATRIX) {
      runs.put(pair, start(pair));
    }
    return MATRIX.stream()
        .map(
            pair ->
                dynamicContainer(
                    pair.label(),
                    Arrays.stream(Case.values())
                        .map(c -> dynamicTest(c.title(), () -> outcome(runs.get(pair).get(c))))));
  }

  /**
   * Deploys {@code pair} and runs its cases: first those that leave the host alone, together; then
   * the others one after another; then takes the deployment down.
   */
  private static Map<Case, CompletableFuture<Void>> start(Pair pair) {
    long began = System.nanoTime();
    CompletableFuture<Deployment> deployed =
        CompletableFuture.supplyAsync(() -> deploy(pair), POOL);
    Map<Case, CompletableFuture<Void>> cases = new EnumMap<>(Case.class);
    for (Case c : Case.values()) {
      if (!c.disturbsTheHost()) {
        cases.put(c, deployed.thenAcceptAsync(d -> timed(pair, c, d), POOL));
      }
    }
    CompletableFuture<?> previous =
        CompletableFuture.allOf(cases.values().toArray(CompletableFuture[]::new));
    for (Case c : Case.values()) {
      if (c.disturbsTheHost()) {
        CompletableFuture<Void> next =
            previous
                .handle((done, failed) -> null)
                .thenCombine(deployed, (ignored, d) -> d)
                .thenAcceptAsync(d -> timed(pair, c, d), POOL);
        cases.put(c, next);
        previous = next;
      }
    }
    CompletableFuture<?> all =
        CompletableFuture.allOf(cases.values().toArray(CompletableFuture[]::new));
    CompletableFuture<Void> closed =
        all.handle((done, failed) -> null)
            .thenCombine(deployed, (ignored, d) -> d)
            .thenAccept(
                d -> {
                  d.close();
                  System.out.printf(
                      "FiveCasesIT: %s done in %d s%n",
                      pair.label(), Duration.ofNanos(System.nanoTime() - began).toSeconds());
                });
    synchronized (FINISHED) {
      FINISHED.add(closed);
    }
    return cases;
  }

  private static Deployment deploy(Pair pair) {
    Deployment deployment;
    try {
      DEPLOYING.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    long began = System.nanoTime();
    try {
      deployment = Deployment.start(pair, directory(pair));
    } finally {
      DEPLOYING.release();
    }
    System.out.printf(
        "FiveCasesIT: %s deployed in %d s%n",
        pair.label(), Duration.ofNanos(System.nanoTime() - began).toSeconds());
    return deployment;
  }

  private static void timed(Pair pair, Case c, Deployment deployment) {
    long began = System.nanoTime();
    try {
      new FiveCases(deployment, ROWS::add).run(c);
    } finally {
      System.out.printf(
          "FiveCasesIT: %s, %s: %d s%n",
          pair.label(), c.title(), Duration.ofNanos(System.nanoTime() - began).toSeconds());
    }
  }

  /** Waits for a case and rethrows what failed it (its assertion, not a wrapper). */
  private static void outcome(CompletableFuture<Void> run) throws Throwable {
    try {
      run.get(PAIR_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | CompletionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      throw cause == null ? e : cause;
    } catch (TimeoutException e) {
      throw new AssertionError("the case did not finish within " + PAIR_TIMEOUT, e);
    }
  }

  /** Takes every pair down, then writes the table: to the output and to target/five-cases.md. */
  @AfterAll
  static void writeTable() throws Exception {
    List<CompletableFuture<?>> finished;
    synchronized (FINISHED) {
      finished = List.copyOf(FINISHED);
    }
    CompletableFuture.allOf(finished.toArray(CompletableFuture[]::new))
        .handle((done, failed) -> null)
        .get(PAIR_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    POOL.shutdownNow();
    List<Row> rows;
    synchronized (ROWS) {
      rows = new ArrayList<>(ROWS);
    }
    rows.sort(
        Comparator.comparingInt(FiveCasesIT::pairIndex).thenComparingInt(FiveCasesIT::caseIndex));
    String table = FourColumns.markdown(rows);
    System.out.println("FiveCasesIT: the four columns of each case\n\n" + table);
    Files.writeString(
        Path.of(System.getProperty("user.dir"), "target", "five-cases.md"),
        "# The five cases on every store × runtime pair\n\n" + table);
  }

  private static int pairIndex(Row row) {
    return MATRIX.stream().map(Pair::label).toList().indexOf(row.pair());
  }

  private static int caseIndex(Row row) {
    return Arrays.stream(Case.values()).map(Case::title).toList().indexOf(row.kase());
  }

  private static Path directory(Pair pair) {
    try {
      return Files.createDirectories(work.resolve(pair.code()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
