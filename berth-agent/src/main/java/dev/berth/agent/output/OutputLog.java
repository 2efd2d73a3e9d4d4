package dev.berth.agent.output;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;

import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The append-only output of one runtime (or one execution), kept in segment files so that it
 * survives a host restart, with byte-offset cursors that keep their meaning under a cap.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Storage.</b> Segment files named by their 20-digit start offset, each at most {@link
 * #segmentBytesFor segmentBytes} long: {@code min(4 MiB, max(64 KiB, cap / 8))}, so that a head
 * drop discards about an eighth of the cap at a time, a small cap does not make a file every few
 * appends, and a large cap still archives and drops in modest pieces. When the retained bytes
 * exceed the cap, whole oldest segments are deleted; the segment being written never is, so the log
 * retains at most {@code max(cap, segmentBytes)} bytes. A reopened log continues at the end of its
 * last segment; see {@link #open} for what a crash leaves behind.
 *
 * <p><b>Durability and failure modes.</b> Appends go through a {@link FileChannel} without fsync: a
 * killed process loses nothing the kernel already has, a machine crash may lose the tail (the page
 * cache). Writes are positional at the published length, so the stray bytes of a failed append are
 * overwritten by the next one. While open, the log holds an operating-system lock on {@code
 * output.lock} in its directory, so that two hosts never write the same segments. The directory and
 * its files are created private to the host's user (0700, 0600): the output is the session's.
 *
 * <p><b>Concurrency.</b> Appends are serialized by one {@link ReentrantLock} that readers never
 * take. Every append publishes an immutable {@link LogState} (segments, length, closed flag)
 * through a volatile field after its bytes are in the file, so a reader that reads up to the
 * published length only ever sees written bytes. Readers open a segment per read; a segment deleted
 * by a concurrent head drop makes the read retry against the newer state (which then reports {@link
 * OutputSlice#behind()}). {@link #openRange} opens the segment files of a read instead of reading
 * them, for answers too large to hold in memory: an open file outlives its deletion by a head drop,
 * so the range's bytes stay the same until it is closed. Waiters wait on a future that the next
 * publication completes, so the writer wakes them without ever blocking on them.
 *
 * <p><b>Invariants.</b> Segments are contiguous, the last one is the one being written, and offsets
 * only grow: {@code startOffset <= nextOffset}, both monotonic, across reopens too.
 */
public final class OutputLog implements OutputSink, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OutputLog.class);
  private static final int MIN_SEGMENT_BYTES = 64 * 1024;
  private static final int MAX_SEGMENT_BYTES = 4 * 1024 * 1024;

  private final Path directory;
  private final long capBytes;
  private final int segmentBytes;
  private final Clock clock;
  private final FileChannel ownership;
  private final ReentrantLock writeLock = new ReentrantLock();

  // Guarded by writeLock: the writer's view, published to readers as LogState.
  private List<Segment> segments;
  private FileChannel active;
  private long next;
  private boolean appendedSinceOpen;

  private volatile LogState state;
  private volatile Optional<Instant> lastAppendAt;

  private OutputLog(
      Path directory,
      long capBytes,
      int segmentBytes,
      Clock clock,
      FileChannel ownership,
      SegmentFiles.Recovery recovery,
      FileChannel active) {
    this.directory = directory;
    this.capBytes = capBytes;
    this.segmentBytes = segmentBytes;
    this.clock = clock;
    this.ownership = ownership;
    this.segments = recovery.segments();
    this.active = active;
    this.next = recovery.next();
    this.lastAppendAt = recovery.lastWrite();
    this.state = LogState.of(segments, next, false);
  }

  /**
   * Opens the log in {@code directory}, creating the directory when missing, or continues the log a
   * previous run left there at its end. After a crash the last segment counts with whatever length
   * its file has; a segment that stops short of the next one (a machine crash that lost page cache)
   * ends the log there, and the later files are renamed {@code *.orphaned}.
   *
   * <p>{@link #lastAppendAt()} of a reopened log is the modification time of its newest non-empty
   * segment: {@link #close()} sets it to the clock time of the last append, and after a crash it is
   * the operating system's time of the last write.
   *
   * @param capBytes how many bytes to retain at least; older whole segments are dropped beyond it
   * @throws IllegalArgumentException when {@code capBytes} is not positive
   * @throws IllegalStateException when the log is already open, in this or another process
   * @throws UncheckedIOException when the directory cannot be created, listed or locked
   */
  public static OutputLog open(Path directory, long capBytes, Clock clock) {
    return open(directory, capBytes, segmentBytesFor(capBytes), clock);
  }

  /** As {@link #open(Path, long, Clock)}, with an explicit segment size (for tests). */
  static OutputLog open(Path directory, long capBytes, int segmentBytes, Clock clock) {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(clock, "clock");
    if (capBytes <= 0 || segmentBytes <= 0) {
      throw new IllegalArgumentException(
          "output log "
              + directory
              + " needs a positive cap and segment size, were "
              + capBytes
              + " and "
              + segmentBytes
              + " bytes; pass Long.MAX_VALUE for no cap");
    }
    try {
      PrivateFiles.createDirectories(directory);
      FileChannel ownership = SegmentFiles.lock(directory);
      try {
        OutputLog opened = openLocked(directory, capBytes, segmentBytes, clock, ownership);
        opened.dropHeadAtOpen();
        return opened;
      } catch (IOException | RuntimeException e) {
        ownership.close();
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open output log " + directory + ": " + e, e);
    }
  }

  private static OutputLog openLocked(
      Path directory, long capBytes, int segmentBytes, Clock clock, FileChannel ownership)
      throws IOException {
    SegmentFiles.Recovery recovery = SegmentFiles.recover(directory);
    FileChannel active = PrivateFiles.open(recovery.segments().getLast().path(), CREATE, WRITE);
    return new OutputLog(directory, capBytes, segmentBytes, clock, ownership, recovery, active);
  }

  /** The segment size {@link #open(Path, long, Clock)} picks for a cap; see the class notes. */
  static int segmentBytesFor(long capBytes) {
    return (int) Math.min(MAX_SEGMENT_BYTES, Math.max(MIN_SEGMENT_BYTES, capBytes / 8));
  }

  /**
   * Appends bytes at the end of the log and wakes every waiting reader. Thread-safe; concurrent
   * appends are serialized and never interleave. Never waits for a reader.
   *
   * @throws IllegalStateException after {@link #close()}
   * @throws UncheckedIOException when a segment cannot be written or created, naming the file;
   *     bytes written before the failure stay in the log
   */
  @Override
  public void append(byte[] bytes, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    writeLock.lock();
    try {
      requireOpen();
      int written = 0;
      try {
        while (written < length) {
          written += writeSome(bytes, offset + written, length - written);
        }
      } finally {
        if (written > 0) {
          afterAppend();
        }
      }
    } finally {
      writeLock.unlock();
    }
  }

  private void requireOpen() {
    if (state.closed()) {
      throw new IllegalStateException(
          "output log " + directory + " is closed and takes no more bytes; open it again first");
    }
  }

  /** Writes what fits into the active segment, rolling to a new one when it is full. */
  private int writeSome(byte[] bytes, int offset, int length) {
    if (activeLength() >= segmentBytes) {
      roll();
    }
    int count = (int) Math.min(length, segmentBytes - activeLength());
    try {
      SegmentFiles.writeFully(active, ByteBuffer.wrap(bytes, offset, count), activeLength());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to " + segments.getLast().path() + ": " + e, e);
    }
    next += count;
    return count;
  }

  private long activeLength() {
    return next - segments.getLast().start();
  }

  private void roll() {
    Segment segment = Segment.in(directory, next);
    FileChannel created;
    try {
      created = PrivateFiles.open(segment.path(), CREATE, WRITE, TRUNCATE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create segment " + segment.path() + ": " + e, e);
    }
    closeQuietly(active, segments.getLast());
    active = created;
    List<Segment> rolled = new ArrayList<>(segments);
    rolled.add(segment);
    segments = List.copyOf(rolled);
  }

  private void afterAppend() {
    appendedSinceOpen = true;
    lastAppendAt = Optional.of(clock.instant());
    List<Segment> dropped = dropHead();
    publish(LogState.of(segments, next, false));
    delete(dropped);
  }

  private void dropHeadAtOpen() {
    writeLock.lock();
    try {
      List<Segment> dropped = dropHead();
      publish(LogState.of(segments, next, false));
      delete(dropped);
    } finally {
      writeLock.unlock();
    }
  }

  /** Drops whole oldest segments while the log retains more than its cap; never the active one. */
  private List<Segment> dropHead() {
    int keepFrom = 0;
    while (keepFrom < segments.size() - 1 && next - segments.get(keepFrom).start() > capBytes) {
      keepFrom++;
    }
    List<Segment> dropped = segments.subList(0, keepFrom);
    segments = List.copyOf(segments.subList(keepFrom, segments.size()));
    return dropped;
  }

  /** Deletes dropped segments; only after publishing, so no new reader can still look for them. */
  private static void delete(List<Segment> dropped) {
    for (Segment segment : dropped) {
      try {
        Files.deleteIfExists(segment.path());
      } catch (IOException e) {
        log.warn("{} - cannot delete dropped output segment: {}", segment.path(), e.toString());
      }
    }
  }

  private void publish(LogState published) {
    LogState previous = state;
    state = published;
    previous.changed().complete(null);
  }

  /**
   * Reads up to {@code maxBytes} bytes from {@code offset} without consuming them. Thread-safe; any
   * number of readers run concurrently with each other and with appends, and keep working after
   * {@link #close()}. See {@link OutputSlice} for a cursor past the end or before the head.
   *
   * @throws IllegalArgumentException when {@code offset} or {@code maxBytes} is negative
   * @throws UncheckedIOException when a segment cannot be read, naming the file
   */
  public OutputSlice read(long offset, int maxBytes) {
    requireCursor(offset, maxBytes);
    while (true) {
      LogState seen = state;
      try {
        return seen.read(offset, maxBytes);
      } catch (NoSuchFileException e) {
        if (state.start() == seen.start()) {
          throw new UncheckedIOException("output segment " + e.getFile() + " is missing", e);
        }
        // A concurrent head drop deleted it: read again against the newer head.
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read output log " + directory + ": " + e, e);
      }
    }
  }

  /**
   * Opens the bytes that {@link #read read(offset, maxBytes)} would return, without reading them:
   * the range holds the segment files open, so its bytes stay readable (and the same) until it is
   * closed, whatever head drops happen meanwhile. For answers too large to build in memory.
   * Thread-safe as {@link #read} is; the caller must close the range.
   *
   * @throws IllegalArgumentException when {@code offset} or {@code maxBytes} is negative
   * @throws UncheckedIOException when a segment cannot be opened, naming the file
   */
  public OutputRange openRange(long offset, int maxBytes) {
    requireCursor(offset, maxBytes);
    while (true) {
      LogState seen = state;
      try {
        return seen.openRange(offset, maxBytes);
      } catch (NoSuchFileException e) {
        if (state.start() == seen.start()) {
          throw new UncheckedIOException("output segment " + e.getFile() + " is missing", e);
        }
        // A concurrent head drop deleted it: open again against the newer head.
      } catch (IOException e) {
        throw new UncheckedIOException("cannot open output log " + directory + ": " + e, e);
      }
    }
  }

  private static void requireCursor(long offset, int maxBytes) {
    if (offset < 0 || maxBytes < 0) {
      throw new IllegalArgumentException(
          "output cursor and read size must be >= 0, were offset="
              + offset
              + " maxBytes="
              + maxBytes
              + "; read from 0 to replay everything");
    }
  }

  /**
   * Waits until the log holds bytes beyond {@code offset}, that is until {@code nextOffset() >
   * offset}. Returns true at once if it already does, false when {@code timeout} passes first. Once
   * the log is closed it returns at once, true only if such bytes exist, so that a reader never
   * waits on a log that will not grow: check {@link #isClosed()} on false.
   */
  public boolean awaitBeyond(long offset, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    while (true) {
      LogState seen = state;
      if (seen.next() > offset) {
        return true;
      }
      long remaining = deadline - System.nanoTime();
      if (seen.closed() || remaining <= 0) {
        return false;
      }
      try {
        seen.changed().get(remaining, TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        return state.next() > offset;
      } catch (ExecutionException e) {
        throw new IllegalStateException("output log change signals never fail", e);
      }
    }
  }

  /** The oldest offset still retained (0 until the cap first drops a segment). */
  public long startOffset() {
    return state.start();
  }

  /** The length of the log: the offset of the next byte appended. */
  public long nextOffset() {
    return state.next();
  }

  /** {@code nextOffset() - startOffset()}: at most {@code max(cap, segment size)}. */
  public long retainedBytes() {
    LogState seen = state;
    return seen.next() - seen.start();
  }

  /** The clock time of the last append; see {@link #open} for a reopened log. */
  public Optional<Instant> lastAppendAt() {
    return lastAppendAt;
  }

  public boolean isClosed() {
    return state.closed();
  }

  /**
   * Stops appends, wakes every waiter and releases the directory; reads keep working. Idempotent.
   *
   * @throws UncheckedIOException when the active segment cannot be closed (the log is closed)
   */
  @Override
  public void close() {
    writeLock.lock();
    try {
      if (state.closed()) {
        return;
      }
      Segment last = segments.getLast();
      try {
        active.close();
        stampLastAppend(last);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot close output segment " + last.path() + ": " + e, e);
      } finally {
        closeQuietly(ownership, last);
        publish(LogState.of(segments, next, true));
      }
    } finally {
      writeLock.unlock();
    }
  }

  /** Records the clock time of the last append as the file time that a reopen restores. */
  private void stampLastAppend(Segment last) throws IOException {
    if (appendedSinceOpen && next > last.start() && lastAppendAt.isPresent()) {
      Files.setLastModifiedTime(last.path(), FileTime.from(lastAppendAt.get()));
    }
  }

  private static void closeQuietly(FileChannel channel, Segment context) {
    try {
      channel.close();
    } catch (IOException e) {
      log.warn("{} - cannot close output file: {}", context.path(), e.toString());
    }
  }

  @Override
  public String toString() {
    LogState seen = state;
    return "OutputLog[" + directory + " " + seen.start() + ".." + seen.next() + "]";
  }
}
