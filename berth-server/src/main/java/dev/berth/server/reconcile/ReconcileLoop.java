package dev.berth.server.reconcile;

import dev.berth.core.lifecycle.ReconcileResult;
import dev.berth.core.lifecycle.Reconciler;
import dev.berth.core.session.ObligationAction;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the reconciler: level-triggered, one pass per session at a time. A session is enqueued when
 * the API changes its intent, again after a pass that had to wait, and by a periodic resync of
 * every session that is not terminated — which is also how unfinished work is picked up after a
 * restart (nothing in memory is needed to continue: the store holds the intent, the phase and the
 * operation's steps).
 *
 * <p>Concurrency: a session is queued at most once; an enqueue while its pass runs marks it dirty
 * and it runs again right after. Across processes the session lease keeps passes exclusive.
 */
public final class ReconcileLoop implements AutoCloseable, dev.berth.core.lifecycle.ReconcileQueue {

  private static final Logger LOG = LoggerFactory.getLogger(ReconcileLoop.class);

  private enum Mark {
    QUEUED,
    RUNNING,
    RUNNING_DIRTY
  }

  /**
   * Timings of the loop.
   *
   * @param busyRetry when a session whose lease another replica holds is looked at again
   * @param firstFailureRetry the wait after a pass that failed; it doubles with every failure in a
   *     row up to {@code maxFailureRetry} ({@link FailureBackoff})
   */
  public record Settings(
      int workers,
      Duration resyncPeriod,
      Duration waitingRetry,
      Duration busyRetry,
      Duration firstFailureRetry,
      Duration maxFailureRetry) {
    public Settings {
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be >= 1, was " + workers);
      }
      Objects.requireNonNull(resyncPeriod, "resyncPeriod");
      Objects.requireNonNull(waitingRetry, "waitingRetry");
      Objects.requireNonNull(busyRetry, "busyRetry");
      Objects.requireNonNull(firstFailureRetry, "firstFailureRetry");
      Objects.requireNonNull(maxFailureRetry, "maxFailureRetry");
    }

    /**
     * Four workers, a resync every 30 s, a waiting session looked at again after 500 ms, a busy one
     * after 2 s, a failed one after 100 ms doubling to 5 s.
     */
    public static Settings defaults() {
      return new Settings(
          4,
          Duration.ofSeconds(30),
          Duration.ofMillis(500),
          Duration.ofSeconds(2),
          Duration.ofMillis(100),
          Duration.ofSeconds(5));
    }
  }

  private final Reconciler reconciler;
  private final InstantSource clock;
  private final SessionStore store;
  private final Settings settings;
  private final Consumer<SessionId> afterPass;
  private final FailureBackoff backoff;
  private final LinkedBlockingQueue<SessionId> queue = new LinkedBlockingQueue<>();
  private final ConcurrentHashMap<SessionId, Mark> marks = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;
  private final Thread[] workers;
  private volatile boolean closed;

  private volatile Consumer<SessionId> recoveryNeeded =
      id ->
          LOG.error(
              "session {} needs store recovery: its runtime knows a newer intent than the store",
              id.value());

  /**
   * Who is told when a pass answers RECOVERY_NEEDED: a runtime ahead of its session's intent, or
   * recovery mode on. The loop itself does nothing more for the session until the next resync.
   */
  public void onRecoveryNeeded(Consumer<SessionId> hook) {
    this.recoveryNeeded = hook;
  }

  /**
   * @param afterPass told after every pass over a session (the API wakes waiting requests with it)
   */
  public ReconcileLoop(
      Reconciler reconciler,
      SessionStore store,
      Settings settings,
      Consumer<SessionId> afterPass,
      InstantSource clock) {
    this.reconciler = reconciler;
    this.clock = clock;
    this.store = store;
    this.settings = settings;
    this.afterPass = afterPass;
    this.backoff = new FailureBackoff(settings.firstFailureRetry(), settings.maxFailureRetry());
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("berth-reconcile-timer").unstarted(r));
    this.workers = new Thread[settings.workers()];
  }

  public void start() {
    for (int i = 0; i < workers.length; i++) {
      workers[i] = Thread.ofVirtual().name("berth-reconcile-" + i).start(this::work);
    }
    long period = settings.resyncPeriod().toMillis();
    var unused = timer.scheduleWithFixedDelay(this::resync, 0, period, TimeUnit.MILLISECONDS);
  }

  /** Asks for a pass over {@code id} as soon as a worker is free. */
  @Override
  public void enqueue(SessionId id) {
    if (closed) {
      return;
    }
    boolean[] added = {false};
    marks.compute(
        id,
        (k, mark) -> {
          if (mark == null) {
            added[0] = true;
            return Mark.QUEUED;
          }
          return mark == Mark.RUNNING ? Mark.RUNNING_DIRTY : mark;
        });
    if (added[0]) {
      queue.add(id);
    }
  }

  /**
   * Enqueues every session that is not terminated, and every terminated one whose archive's
   * recovery window has ended (its pass deletes the archive).
   */
  public void resync() {
    try {
      enqueueAll(
          SessionQuery.all(SessionQuery.MAX_LIMIT)
              .inPhases(EnumSet.complementOf(EnumSet.of(Phase.TERMINATED))),
          s -> true);
      enqueueAll(
          SessionQuery.all(SessionQuery.MAX_LIMIT).inPhases(EnumSet.of(Phase.TERMINATED)),
          this::retentionEnded);
    } catch (RuntimeException e) {
      LOG.warn("resync failed; the next one retries", e);
    }
  }

  private void enqueueAll(SessionQuery query, java.util.function.Predicate<Session> due) {
    store.forEach(
        query,
        s -> {
          if (due.test(s)) {
            enqueue(s.id());
          }
        });
  }

  private boolean retentionEnded(Session s) {
    return s.openObligation(ObligationAction.RETAIN_ARCHIVE)
        .flatMap(o -> o.retainUntil())
        .filter(until -> !until.isAfter(clock.instant()))
        .isPresent();
  }

  @Override
  public void close() {
    closed = true;
    timer.shutdownNow();
    for (Thread worker : workers) {
      if (worker != null) {
        worker.interrupt();
      }
    }
    // Wait for passes in flight, so nothing writes to the store after the server closed it.
    for (Thread worker : workers) {
      if (worker != null) {
        try {
          worker.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void work() {
    while (!closed) {
      SessionId id;
      try {
        id = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      marks.put(id, Mark.RUNNING);
      Optional<Duration> retry;
      try {
        retry = pass(id);
      } catch (Throwable t) {
        // Never leave a session marked RUNNING by a dead worker: it would never run again.
        retry = Optional.of(backoff.failed(id));
        LOG.error(
            "reconcile pass over session {} died; retrying in {} ms",
            id.value(),
            retry.get().toMillis(),
            t);
      }
      Mark after = marks.compute(id, (k, mark) -> mark == Mark.RUNNING_DIRTY ? Mark.QUEUED : null);
      if (after == Mark.QUEUED) {
        queue.add(id);
      } else {
        retry.ifPresent(delay -> later(id, delay));
      }
      afterPass.accept(id);
    }
  }

  private Optional<Duration> pass(SessionId id) {
    try {
      ReconcileResult result = reconciler.reconcile(id);
      backoff.passed(id);
      return switch (result) {
        case CONVERGED, NOT_FOUND -> Optional.empty();
        case WAITING -> Optional.of(settings.waitingRetry());
        case LEASE_BUSY -> Optional.of(settings.busyRetry());
        case RECOVERY_NEEDED -> {
          // Also every pass while recovery mode is on: the hook tells the two apart.
          recoveryNeeded.accept(id);
          yield Optional.empty();
        }
      };
    } catch (RuntimeException e) {
      Duration delay = backoff.failed(id);
      LOG.warn(
          "reconcile pass over session {} failed ({} in a row); retrying in {} ms",
          id.value(),
          backoff.inARow(id),
          delay.toMillis(),
          e);
      return Optional.of(delay);
    }
  }

  private void later(SessionId id, Duration delay) {
    if (!closed) {
      var unused = timer.schedule(() -> enqueue(id), delay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }
}
