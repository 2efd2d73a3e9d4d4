package dev.berth.server.telemetry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One server's meters: its own registry (never Micrometer's global one, so that two servers in one
 * JVM, as tests run them, count apart), the JVM's and the process's meters bound to it, and the
 * scrape in the Prometheus text format.
 */
public final class Telemetry implements AutoCloseable {

  /** The Prometheus text format's media type, as a scraper asks for it. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  /**
   * The histogram buckets of lifecycle durations (an operation, a restore): from a fast local start
   * to the default operation timeout.
   */
  private static final Duration[] LIFECYCLE_BUCKETS = {
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofMinutes(1),
    Duration.ofMinutes(2),
    Duration.ofMinutes(5),
    Duration.ofMinutes(10)
  };

  /** The buckets of short calls: an API request, a call to a node agent, a store transaction. */
  private static final Duration[] CALL_BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10)
  };

  /**
   * A timer of short calls ({@link #CALL_BUCKETS}) made once, whose tagged instances are then
   * looked up by their tags alone: what is timed on every request pays no builder and no copy of
   * the buckets each time.
   */
  public Meter.MeterProvider<Timer> callTimer(String name, String description) {
    return timer(name, description, CALL_BUCKETS);
  }

  /** As {@link #callTimer}, for lifecycle durations ({@link #LIFECYCLE_BUCKETS}). */
  public Meter.MeterProvider<Timer> lifecycleTimer(String name, String description) {
    return timer(name, description, LIFECYCLE_BUCKETS);
  }

  /** A counter made once, whose tagged instances are looked up by their tags alone. */
  public Meter.MeterProvider<Counter> counter(String name, String description) {
    return Counter.builder(name).description(description).withRegistry(registry);
  }

  private Meter.MeterProvider<Timer> timer(String name, String description, Duration[] buckets) {
    return Timer.builder(name)
        .description(description)
        .serviceLevelObjectives(buckets)
        .withRegistry(registry);
  }

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<AutoCloseable> binders = new ArrayList<>();
  private final List<Runnable> beforeScrape = new CopyOnWriteArrayList<>();

  /**
   * How long a scrape waits for the counts read from the store. A store that does not answer (which
   * /readyz reports) must not take the whole scrape past a scraper's timeout: the scrape then
   * answers with the last counts and everything else.
   */
  static final Duration REFRESH_WAIT = Duration.ofSeconds(2);

  // One refresh at a time: scrapes that come while one runs wait for it rather than queue more
  // store reads (a scrape needs no token with --metrics-without-token).
  private final ExecutorService refresher =
      Executors.newSingleThreadExecutor(
          r -> Thread.ofPlatform().daemon().name("berth-metrics-refresh").unstarted(r));
  private @Nullable Future<?> refreshing;

  private final Duration refreshWait;

  public Telemetry() {
    this(REFRESH_WAIT);
  }

  /** A registry whose scrapes wait at most {@code refreshWait} for their refreshes. */
  Telemetry(Duration refreshWait) {
    this.refreshWait = refreshWait;
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    binders.add(gc);
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Runs {@code refresh} before every scrape: for gauges read from elsewhere in one go. */
  public void beforeScrape(Runnable refresh) {
    beforeScrape.add(refresh);
  }

  /**
   * Every meter now, in the Prometheus text format, after the refreshes given to {@link
   * #beforeScrape} ran (or {@link #REFRESH_WAIT} passed: their meters then keep their last values).
   */
  public String scrape() {
    Future<?> refresh = startRefresh();
    try {
      refresh.get(refreshWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // The refresh logs its own failure; a slow one finishes for the next scrape.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return registry.scrape();
  }

  private synchronized Future<?> startRefresh() {
    Future<?> running = refreshing;
    if (running == null || running.isDone()) {
      running = refresher.submit(() -> beforeScrape.forEach(Runnable::run));
      refreshing = running;
    }
    return running;
  }

  @Override
  public void close() {
    refresher.shutdownNow();
    for (AutoCloseable binder : binders) {
      try {
        binder.close();
      } catch (Exception e) {
        // a binder that cannot let go of its listeners keeps nothing else from closing
      }
    }
    registry.close();
  }
}
