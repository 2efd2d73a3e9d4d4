package dev.berth.kubernetes.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The installation record of a namespace: recorded once, read by every later server. */
class ConfigMapInstallationTest {
  private final MockApiServer server = MockApiServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void theFirstServerRecordsItsIdAndEveryLaterOneReadsIt() {
    String first =
        ConfigMapInstallation.readOrRecord(
            server.client(), MockApiServer.NAMESPACE, () -> "berth-first");
    String second =
        ConfigMapInstallation.readOrRecord(
            server.client(), MockApiServer.NAMESPACE, () -> "berth-second");

    assertThat(first).isEqualTo("berth-first");
    assertThat(second).isEqualTo("berth-first");
  }

  @Test
  void ofServersStartingAtOnceAllAgreeOnOneId() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<String>> ids = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        String minted = "berth-" + i;
        ids.add(
            pool.submit(
                () -> {
                  start.await();
                  return ConfigMapInstallation.readOrRecord(
                      server.client(), MockApiServer.NAMESPACE, () -> minted);
                }));
      }
      start.countDown();
      Set<String> agreed = new HashSet<>();
      for (Future<String> id : ids) {
        agreed.add(id.get());
      }
      assertThat(agreed).hasSize(1);
    } finally {
      pool.shutdownNow();
    }
  }
}
