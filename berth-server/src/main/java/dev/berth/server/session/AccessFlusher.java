package dev.berth.server.session;

import dev.berth.core.access.AccessLog;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the accesses the {@link AccessLog} keeps once their interval has passed, and all of them
 * when the server stops, so that a burst of requests ends up in {@code lastAccess} within a second
 * and none is lost by a clean shutdown (a crash loses at most the last second's, which only makes a
 * session look idle a second early).
 */
public final class AccessFlusher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AccessFlusher.class);

  private final AccessLog accesses;
  private final Clock clock;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "berth-access-flush");
            t.setDaemon(true);
            return t;
          });

  public AccessFlusher(AccessLog accesses, Clock clock) {
    this.accesses = accesses;
    this.clock = clock;
  }

  public void start() {
    long every = Math.max(50, accesses.every().toMillis());
    // flushDue catches and logs its own failures, so the future carries none to look at.
    var unused = timer.scheduleWithFixedDelay(this::flushDue, every, every, TimeUnit.MILLISECONDS);
  }

  private void flushDue() {
    try {
      accesses.flushDue(clock.instant());
    } catch (RuntimeException e) {
      // A store hiccup: the log keeps what it could not write, and the next round writes it.
      LOG.warn("writing kept accesses failed; retrying", e);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    accesses.flush();
  }
}
