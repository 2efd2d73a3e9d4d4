package dev.berth.agent.telemetry;

import dev.berth.agent.host.NodeMeters;
import dev.berth.agent.host.SessionHost;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToIntFunction;

/**
 * One node's meters: its own registry (never Micrometer's global one, so that two nodes in one JVM,
 * as tests run them, count apart), the JVM's and the process's meters, what the host reports
 * through {@link NodeMeters} and what it is asked at each scrape ({@link #watch}).
 */
public final class NodeTelemetry implements NodeMeters, AutoCloseable {

  /** The Prometheus text format's media type, as a scraper asks for it. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  // Every label value is registered up front: a rate over a series that appears only with its
  // first failure misses that failure, and the sets are closed, so the series are few.
  private final Map<OutputKind, Counter> output = new EnumMap<>(OutputKind.class);
  private final Map<SandboxFailure, Counter> failures = new EnumMap<>(SandboxFailure.class);

  public NodeTelemetry() {
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    gc.bindTo(registry);
    for (OutputKind kind : OutputKind.values()) {
      output.put(
          kind,
          Counter.builder("berth.node.output.bytes")
              .description("Output bytes the node captured into the sessions' logs")
              .tag("kind", kind.wireName())
              .register(registry));
    }
    for (SandboxFailure reason : SandboxFailure.values()) {
      failures.put(
          reason,
          Counter.builder("berth.node.sandbox.failures")
              .description("Launches the sandbox refused or failed")
              .tag("reason", reason.wireName())
              .register(registry));
    }
  }

  /** Gauges of what {@code host} holds, read at each scrape. */
  public void watch(SessionHost host) {
    gauge(
        "berth.node.sessions.hosted",
        "Runtimes the node hosts, in any state",
        host,
        SessionHost::hostedSessions);
    gauge("berth.node.shells.running", "Session shells alive", host, SessionHost::runningShells);
    gauge(
        "berth.node.executions.running",
        "Executions not finished",
        host,
        SessionHost::runningExecutions);
  }

  @Override
  public void outputCaptured(OutputKind kind, int bytes) {
    Objects.requireNonNull(output.get(kind)).increment(bytes);
  }

  @Override
  public void sandboxFailed(SandboxFailure reason) {
    Objects.requireNonNull(failures.get(reason)).increment();
  }

  /** Every meter now, in the Prometheus text format. */
  public String scrape() {
    return registry.scrape();
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }

  private void gauge(
      String name, String description, SessionHost host, ToIntFunction<SessionHost> value) {
    // A strong reference: the registry must not let the host it reads go (Micrometer holds a
    // gauge's object weakly by default, and the gauge would then read NaN).
    Gauge.builder(name, host, h -> value.applyAsInt(h))
        .description(description)
        .strongReference(true)
        .register(registry);
  }
}
