package dev.berth.server.telemetry;

import dev.berth.core.session.Phase;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code berth_sessions{phase}}: how many sessions (not deleted) are in each phase. The counts are
 * read from the store once per scrape ({@link #refresh}), in one grouped query, rather than once
 * per gauge; a phase with no session shows 0, so that a series does not vanish when it empties.
 */
public final class SessionGauges {

  private static final Logger LOG = LoggerFactory.getLogger(SessionGauges.class);

  private final Supplier<Map<Phase, Long>> counts;
  private final Map<Phase, AtomicLong> values = new EnumMap<>(Phase.class);

  public SessionGauges(MeterRegistry registry, Supplier<Map<Phase, Long>> counts) {
    this.counts = counts;
    for (Phase phase : Phase.values()) {
      AtomicLong value = new AtomicLong();
      values.put(phase, value);
      Gauge.builder("berth.sessions", value, AtomicLong::get)
          .description("Sessions, not deleted, by lifecycle phase")
          .tag("phase", phase.name().toLowerCase(java.util.Locale.ROOT))
          .register(registry);
    }
  }

  /**
   * Reads the counts again. A failed read keeps the last counts and is logged: a scrape still
   * answers, with everything else, while the store is away (which /readyz reports).
   */
  public void refresh() {
    Map<Phase, Long> now;
    try {
      now = counts.get();
    } catch (RuntimeException e) {
      LOG.warn("cannot count the sessions for the metrics; the last counts stay: {}", e.toString());
      return;
    }
    values.forEach((phase, value) -> value.set(now.getOrDefault(phase, 0L)));
  }
}
