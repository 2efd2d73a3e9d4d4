package dev.berth.kubernetes.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.session.Session;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Audit sequences taken by creating the event's ConfigMap: no two events share one, and no hole is
 * left that a reader's cursor could pass. The API server is simulated (fabric8's mock server in
 * CRUD mode).
 */
class ConfigMapAuditLogTest {
  private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
  private final MockApiServer server = MockApiServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  /** A store as another process would open it: knowing nothing of the sequences taken. */
  private ConfigMapSessionStore process() {
    return new ConfigMapSessionStore(server.client(), MockApiServer.NAMESPACE, "test", clock);
  }

  private AuditEvent event(Session s, String detail) {
    return AuditEvent.of(s.id(), clock.instant(), "t", "session.test", detail);
  }

  @Test
  void concurrentAppendersOfSeveralProcessesTakeEverySequenceOnceWithoutHoles() throws Exception {
    Session s = process().create(TestSessions.requested(clock.instant()));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        ConfigMapSessionStore store = process();
        writers.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 10; i++) {
                    store.append(event(s, "event " + i));
                  }
                  return null;
                }));
      }
      for (Future<?> f : writers) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(process().events(s.id(), 0, 100))
        .extracting(AuditEvent::sequence)
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 40).boxed().toList());
  }

  @Test
  void aHeadThatLagsBehindOnlyCostsTheNextWriterRefusedCreates() {
    ConfigMapSessionStore first = process();
    Session s = first.create(TestSessions.requested(clock.instant()));
    for (int i = 0; i < 3; i++) {
      first.append(event(s, "event " + i));
    }
    var configMaps = server.client().configMaps().inNamespace(MockApiServer.NAMESPACE);
    ConfigMap head = configMaps.withName("berth-audit-test-head").get();
    head.getData().put("sequence", "1");
    configMaps.resource(head).update();

    AuditEvent appended = process().append(event(s, "after the lag"));

    assertThat(appended.sequence()).isEqualTo(4);
    assertThat(configMaps.withName("berth-audit-test-head").get().getData())
        .containsEntry("sequence", "4");
    assertThat(configMaps.withName("berth-audit-test-0000000000000000004").get()).isNotNull();
  }
}
