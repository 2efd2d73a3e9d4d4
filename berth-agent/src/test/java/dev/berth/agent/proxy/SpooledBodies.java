package dev.berth.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The request bodies the proxy spooled to files ({@link UpstreamRequests.Spool}), as tests check
 * that none is left behind. A file is removed when its exchange ends, which may be just after the
 * answer reached the client, and other tests of the same JVM may spool bodies of their own
 * meanwhile: so only files that were not there before count, and each must go within a bound.
 */
final class SpooledBodies {

  private SpooledBodies() {}

  /** The spooled bodies in the JVM's temporary directory now. */
  static List<Path> now() throws IOException {
    List<Path> found = new ArrayList<>();
    try (var left =
        Files.newDirectoryStream(
            Path.of(System.getProperty("java.io.tmpdir")), "berth-proxy-body-*")) {
      left.forEach(found::add);
    }
    return found;
  }

  /** Waits until every spooled body that was not among {@code before} is gone. */
  static void assertRemovedSince(List<Path> before) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(now())
                    .as("spooled bodies left behind")
                    .filteredOn(p -> !before.contains(p))
                    .isEmpty());
  }
}
