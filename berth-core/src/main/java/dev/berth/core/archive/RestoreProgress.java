package dev.berth.core.archive;

import dev.berth.core.session.SessionId;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * How far each restore in flight has streamed its archive to the agent, for the session's {@code
 * restore} field and the operation's events: the adapter that streams the archive counts, the API
 * reads. Kept in memory on purpose: the count means something only while the stream runs, and a
 * restore that a restart interrupts starts again from byte zero.
 */
public final class RestoreProgress {

  /** A restore's progress: {@code bytes} of {@code totalBytes} sent, as of {@code updatedAt}. */
  public record Progress(long generation, long bytes, long totalBytes, Instant updatedAt) {}

  private final ConcurrentMap<SessionId, Progress> running = new ConcurrentHashMap<>();
  private final InstantSource clock;

  public RestoreProgress(InstantSource clock) {
    this.clock = clock;
  }

  public Optional<Progress> of(SessionId session) {
    return Optional.ofNullable(running.get(session));
  }

  /**
   * Counts what is read from {@code archive} as the restore of {@code session}'s generation: called
   * by the adapter that streams the archive to the agent.
   */
  public InputStream counting(
      SessionId session, long generation, long totalBytes, InputStream archive) {
    running.put(session, new Progress(generation, 0, totalBytes, clock.instant()));
    return new FilterInputStream(archive) {
      private long sent;

      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          advance(1);
        }
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
          advance(n);
        }
        return n;
      }

      private void advance(long n) {
        sent += n;
        running.put(session, new Progress(generation, sent, totalBytes, clock.instant()));
      }
    };
  }

  /** The restore ended (either way); its progress is no longer news. */
  public void finished(SessionId session) {
    running.remove(session);
  }
}
