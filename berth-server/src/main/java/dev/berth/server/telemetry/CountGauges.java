package dev.berth.server.telemetry;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges of how many sessions are in each value of an enum, such as {@code berth_sessions{phase}}
 * and {@code berth_reservations{state}}. The counts are read from the store once per scrape ({@link
 * #refresh}), in one grouped query, rather than once per gauge; a value with no session shows 0, so
 * that a series does not vanish when it empties.
 */
public final class CountGauges<E extends Enum<E>> {

  private static final Logger LOG = LoggerFactory.getLogger(CountGauges.class);

  /** What is counted: the meter's name and description, and the tag naming the enum's value. */
  public record Meter(String name, String description, String tag) {}

  private final Meter meter;
  private final Supplier<Map<E, Long>> counts;
  private final Map<E, AtomicLong> values;

  public CountGauges(
      MeterRegistry registry, Meter meter, Class<E> kind, Supplier<Map<E, Long>> counts) {
    this.meter = meter;
    this.counts = counts;
    this.values = new EnumMap<>(kind);
    for (E value : kind.getEnumConstants()) {
      AtomicLong count = new AtomicLong();
      values.put(value, count);
      Gauge.builder(meter.name(), count, AtomicLong::get)
          .description(meter.description())
          .tag(meter.tag(), value.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
  }

  /**
   * Reads the counts again. A failed read keeps the last counts and is logged: a scrape still
   * answers, with everything else, while the store is away (which /readyz reports).
   */
  public void refresh() {
    Map<E, Long> now;
    try {
      now = counts.get();
    } catch (RuntimeException e) {
      LOG.warn(
          "cannot read {} for the metrics; the last counts stay: {}", meter.name(), e.toString());
      return;
    }
    values.forEach((value, count) -> count.set(now.getOrDefault(value, 0L)));
  }
}
