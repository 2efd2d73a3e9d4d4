package dev.berth.server.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Gauge;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TelemetryTest {

  @Test
  void aScrapeWhoseRefreshHangsAnswersInTimeWithTheLastValuesAndStartsNoSecondRefresh()
      throws Exception {
    CountDownLatch storeAnswers = new CountDownLatch(1);
    AtomicInteger refreshes = new AtomicInteger();
    AtomicInteger value = new AtomicInteger(7);
    try (Telemetry telemetry = new Telemetry(Duration.ofMillis(100))) {
      Gauge.builder("berth.counted", value, AtomicInteger::get).register(telemetry.registry());
      telemetry.beforeScrape(
          () -> {
            refreshes.incrementAndGet();
            try {
              storeAnswers.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            value.set(8);
          });

      long start = System.nanoTime();
      assertThat(telemetry.scrape()).contains("berth_counted 7.0");
      assertThat(telemetry.scrape()).contains("berth_counted 7.0");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThat(refreshes).as("one refresh in flight, however many scrapes").hasValue(1);

      storeAnswers.countDown();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> telemetry.scrape().contains("berth_counted 8.0"));
    }
  }
}
