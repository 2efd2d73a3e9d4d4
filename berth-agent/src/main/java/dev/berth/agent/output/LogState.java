package dev.berth.agent.output;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An immutable snapshot of an {@link OutputLog} as readers see it: its segments, its length,
 * whether it is closed, and a future that completes when the next snapshot replaces this one. Every
 * byte below {@code next} was in its segment file before the snapshot was published.
 */
record LogState(
    List<Segment> segments, long next, boolean closed, CompletableFuture<Void> changed) {

  static LogState of(List<Segment> segments, long next, boolean closed) {
    return new LogState(segments, next, closed, new CompletableFuture<>());
  }

  long start() {
    return segments.getFirst().start();
  }

  /** Reads as {@link OutputLog#read} describes, from the segments of this snapshot. */
  OutputSlice read(long offset, int maxBytes) throws IOException {
    if (offset > next) {
      return new OutputSlice(offset, next, new byte[0], next, start());
    }
    long from = Math.max(offset, start());
    byte[] bytes = new byte[(int) Math.min(maxBytes, next - from)];
    int filled = 0;
    for (int index = segmentAt(from); filled < bytes.length; index++) {
      Segment segment = segments.get(index);
      long at = from + filled;
      int count = (int) Math.min(bytes.length - filled, end(index) - at);
      SegmentFiles.readFully(segment, at - segment.start(), bytes, filled, count);
      filled += count;
    }
    return new OutputSlice(offset, from, bytes, next, start());
  }

  /**
   * Opens the range {@link OutputLog#openRange} describes, from the segments of this snapshot: the
   * same bounds as {@link #read}, with the segment files it spans held open instead of read.
   */
  OutputRange openRange(long offset, int maxBytes) throws IOException {
    if (offset > next) {
      return new OutputRange(offset, next, next, start(), List.of());
    }
    long from = Math.max(offset, start());
    int length = (int) Math.min(maxBytes, next - from);
    List<OutputRange.Piece> pieces = new ArrayList<>();
    try {
      int covered = 0;
      for (int index = segmentAt(from); covered < length; index++) {
        Segment segment = segments.get(index);
        long at = from + covered;
        int count = (int) Math.min(length - covered, end(index) - at);
        FileChannel channel = FileChannel.open(segment.path(), StandardOpenOption.READ);
        pieces.add(new OutputRange.Piece(channel, at - segment.start(), count, segment));
        covered += count;
      }
      return new OutputRange(offset, from, next, start(), pieces);
    } catch (IOException | RuntimeException e) {
      for (OutputRange.Piece piece : pieces) {
        try {
          piece.channel().close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  private long end(int index) {
    return index + 1 < segments.size() ? segments.get(index + 1).start() : next;
  }

  /** The index of the segment holding {@code offset}: the last one starting at or before it. */
  private int segmentAt(long offset) {
    int low = 0;
    int high = segments.size() - 1;
    while (low < high) {
      int middle = (low + high + 1) >>> 1;
      if (segments.get(middle).start() <= offset) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    return low;
  }
}
