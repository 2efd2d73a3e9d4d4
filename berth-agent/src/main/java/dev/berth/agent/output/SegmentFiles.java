package dev.berth.agent.output;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

import dev.berth.protocol.files.PrivateFiles;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File-level work of an output log: taking ownership of its directory, finding the segments a
 * previous run left, and positional reads and writes that do not stop short.
 */
final class SegmentFiles {
  private static final Logger log = LoggerFactory.getLogger(SegmentFiles.class);
  private static final String LOCK_FILE = "output.lock";
  private static final String ORPHAN_SUFFIX = ".orphaned";

  private SegmentFiles() {}

  /** What a directory holds: contiguous segments, the offset after the last byte, last write. */
  record Recovery(List<Segment> segments, long next, Optional<Instant> lastWrite) {}

  /**
   * Locks the directory for this log so that two hosts (or two logs in one host) never write the
   * same segments. The lock is released when the returned channel is closed.
   *
   * @throws IllegalStateException when another process or another log in this process holds it
   */
  static FileChannel lock(Path directory) throws IOException {
    FileChannel channel = PrivateFiles.open(directory.resolve(LOCK_FILE), CREATE, WRITE);
    try {
      FileLock lock = channel.tryLock();
      if (lock != null) {
        return channel;
      }
    } catch (OverlappingFileLockException heldInThisProcess) {
      // Falls through to the common refusal below.
    }
    channel.close();
    throw new IllegalStateException(
        "output log "
            + directory
            + " is already open (in this or another process); close the other owner first");
  }

  /**
   * Finds the segments in a directory. They must be contiguous: a segment that starts after the
   * previous one ends means the bytes between were lost (a machine crash before the page cache
   * reached the disk), and everything from the hole on is set aside as {@code *.orphaned} files so
   * that offsets stay unambiguous. The last segment's length is its file size, torn or not. An
   * empty directory yields one empty segment at offset 0.
   */
  static Recovery recover(Path directory) throws IOException {
    List<Segment> found = list(directory);
    if (found.isEmpty()) {
      return new Recovery(List.of(Segment.in(directory, 0)), 0, Optional.empty());
    }
    List<Segment> kept = new ArrayList<>();
    long end = found.getFirst().start();
    for (Segment segment : found) {
      if (segment.start() > end) {
        orphan(found.subList(kept.size(), found.size()), end);
        break;
      }
      kept.add(segment);
      end = segment.start() + Files.size(segment.path());
    }
    return new Recovery(List.copyOf(kept), end, lastWrite(kept, end));
  }

  private static List<Segment> list(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files
          .filter(Files::isRegularFile)
          .flatMap(file -> Segment.of(file).stream())
          .sorted(Comparator.comparingLong(Segment::start))
          .toList();
    }
  }

  private static void orphan(List<Segment> segments, long holeAt) throws IOException {
    for (Segment segment : segments) {
      Path aside = segment.path().resolveSibling(segment.path().getFileName() + ORPHAN_SUFFIX);
      Files.move(segment.path(), aside, StandardCopyOption.REPLACE_EXISTING);
      log.warn(
          "{} - bytes missing from offset {} on (machine crash?); set aside as {}",
          segment.path(),
          holeAt,
          aside.getFileName());
    }
  }

  /** The modification time of the newest segment that holds bytes. */
  private static Optional<Instant> lastWrite(List<Segment> segments, long next) throws IOException {
    long end = next;
    for (Segment segment : segments.reversed()) {
      if (end > segment.start()) {
        return Optional.of(Files.getLastModifiedTime(segment.path()).toInstant());
      }
      end = segment.start();
    }
    return Optional.empty();
  }

  static void writeFully(FileChannel channel, ByteBuffer source, long position) throws IOException {
    long at = position;
    while (source.hasRemaining()) {
      at += channel.write(source, at);
    }
  }

  /** Reads {@code length} bytes at {@code position} of a segment into {@code target}. */
  static void readFully(Segment segment, long position, byte[] target, int offset, int length)
      throws IOException {
    try (FileChannel channel = FileChannel.open(segment.path(), READ)) {
      ByteBuffer buffer = ByteBuffer.wrap(target, offset, length);
      long at = position;
      while (buffer.hasRemaining()) {
        int read = channel.read(buffer, at);
        if (read < 0) {
          throw new EOFException(
              segment.path() + " ends at byte " + at + ", before " + (position + length));
        }
        at += read;
      }
    }
  }
}
