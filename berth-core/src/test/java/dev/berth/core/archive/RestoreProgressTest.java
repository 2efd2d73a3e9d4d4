package dev.berth.core.archive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.session.SessionId;
import dev.berth.core.testing.MutableClock;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

class RestoreProgressTest {

  private final MutableClock clock = MutableClock.at("2026-11-29T12:00:00Z");
  private final RestoreProgress progress = new RestoreProgress(clock);
  private final SessionId session = new SessionId("0123456789abcdef0123456789abcdef");

  @Test
  void aRestoreReportsTheArchiveBytesStreamedSoFarAndNothingOnceItEnded() throws IOException {
    InputStream archive = progress.counting(session, 3, 10, new ByteArrayInputStream(new byte[10]));
    assertThat(progress.of(session)).hasValueSatisfying(p -> assertThat(p.bytes()).isZero());

    assertThat(archive.read()).isZero();
    assertThat(archive.read(new byte[4], 0, 4)).isEqualTo(4);

    assertThat(progress.of(session))
        .hasValueSatisfying(
            p -> {
              assertThat(p.generation()).isEqualTo(3);
              assertThat(p.bytes()).isEqualTo(5);
              assertThat(p.totalBytes()).isEqualTo(10);
            });
    progress.finished(session);
    assertThat(progress.of(session)).isEmpty();
  }
}
