package dev.berth.server.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.testing.InMemoryArchiveStore;
import dev.berth.core.testing.MutableClock;
import dev.berth.core.testing.TestSessions;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MeteredArchiveStoreTest {

  private final Telemetry telemetry = new Telemetry();
  private final MeteredArchiveStore archives =
      new MeteredArchiveStore(
          new InMemoryArchiveStore(MutableClock.at("2026-12-03T10:00:00Z")), telemetry);
  private final SessionId session = TestSessions.newId();

  @AfterEach
  void close() {
    telemetry.close();
  }

  @Test
  void aCommittedUploadAndItsReadingBackCountTheirBytesAndTheirDurations() throws Exception {
    ArchiveRef committed;
    try (ArchiveUpload upload = archives.begin(session, 1)) {
      upload.stream().write(new byte[1000]);
      committed = upload.commit(List.of("home"));
    }
    try (InputStream in = archives.open(committed)) {
      assertThat(in.readAllBytes()).hasSize(1000);
    }

    String scrape = telemetry.scrape();
    assertThat(scrape)
        .contains("berth_archive_bytes_total{direction=\"write\"} " + committed.sizeBytes() + ".0")
        .contains("berth_archive_bytes_total{direction=\"read\"} 1000.0")
        .contains(
            "berth_archive_transfers_seconds_count{direction=\"write\",result=\"committed\"} 1")
        .contains("berth_archive_transfers_seconds_count{direction=\"read\",result=\"closed\"} 1")
        .doesNotContain("aborted");
  }

  @Test
  void anUploadClosedWithoutItsCommitIsCountedAsAbortedAndAddsNoBytes() throws Exception {
    try (ArchiveUpload upload = archives.begin(session, 1)) {
      upload.stream().write(new byte[10]);
    }

    assertThat(telemetry.scrape())
        .contains("berth_archive_transfers_seconds_count{direction=\"write\",result=\"aborted\"} 1")
        .doesNotContain("berth_archive_bytes_total{");
  }
}
