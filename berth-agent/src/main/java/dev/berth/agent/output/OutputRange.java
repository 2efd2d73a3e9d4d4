package dev.berth.agent.output;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.Objects;

/**
 * A range of an {@link OutputLog} held open for reading, from {@link OutputLog#openRange}: where it
 * lies and where the log stood, as an {@link OutputSlice} says, but without its bytes in memory.
 * {@link #stream()} reads them straight from the segment files, as often as needed, so that one
 * answer can be written from them twice (as text and as base64) through small buffers.
 *
 * <p>The range keeps the segment files it spans open: a head drop that deletes one of them
 * meanwhile removes only its name, so every stream of the range sees the same bytes. Close the
 * range to release them. Not thread-safe: one range serves one answer on one thread.
 */
public final class OutputRange implements AutoCloseable {

  /** The bytes {@code [position, position + length)} of one open segment file. */
  record Piece(FileChannel channel, long position, int length, Segment segment) {}

  private final long requested;
  private final long offset;
  private final int length;
  private final long nextOffset;
  private final long startOffset;
  private final List<Piece> pieces;

  OutputRange(long requested, long offset, long nextOffset, long startOffset, List<Piece> pieces) {
    this.requested = requested;
    this.offset = offset;
    this.nextOffset = nextOffset;
    this.startOffset = startOffset;
    this.pieces = List.copyOf(pieces);
    this.length = this.pieces.stream().mapToInt(Piece::length).sum();
    if (requested < 0 || startOffset < 0 || offset < startOffset || offset + length > nextOffset) {
      throw new IllegalArgumentException(
          "output range must satisfy 0 <= startOffset <= offset <= offset + length <= nextOffset,"
              + " were requested="
              + requested
              + " offset="
              + offset
              + " length="
              + length
              + " nextOffset="
              + nextOffset
              + " startOffset="
              + startOffset);
    }
  }

  /** The cursor the reader asked for. */
  public long requested() {
    return requested;
  }

  /** The absolute offset of the range's first byte (see {@link OutputSlice} for the cases). */
  public long offset() {
    return offset;
  }

  /** How many bytes the range holds. */
  public int length() {
    return length;
  }

  /** The log's length when the range was opened: the offset its next byte will have. */
  public long nextOffset() {
    return nextOffset;
  }

  /** The log's head when the range was opened: the oldest offset still retained. */
  public long startOffset() {
    return startOffset;
  }

  /** The cursor lay past the end of the log: the reader must start over from {@code nextOffset}. */
  public boolean reset() {
    return requested > nextOffset;
  }

  /** The cursor fell off the head of a capped log: the bytes start at the head instead. */
  public boolean behind() {
    return requested < startOffset;
  }

  /** The offset after the last byte of this range: the cursor for the next read. */
  public long endOffset() {
    return offset + length;
  }

  /**
   * A fresh stream of the range's bytes, read positionally from the held files (it never moves
   * them, so two streams do not disturb each other). Closing the stream does not close the range.
   */
  public InputStream stream() {
    return new RangeStream(pieces);
  }

  /**
   * Releases the segment files. Idempotent.
   *
   * @throws UncheckedIOException when a file cannot be closed (every other one is closed)
   */
  @Override
  public void close() {
    IOException failed = null;
    for (Piece piece : pieces) {
      try {
        piece.channel().close();
      } catch (IOException e) {
        failed = e;
      }
    }
    if (failed != null) {
      throw new UncheckedIOException("cannot close an output segment: " + failed, failed);
    }
  }

  @Override
  public String toString() {
    return "OutputRange["
        + offset
        + ".."
        + endOffset()
        + " of "
        + startOffset
        + ".."
        + nextOffset
        + "]";
  }

  /** Reads the pieces one after the other, never more than the caller's buffer at a time. */
  private static final class RangeStream extends InputStream {
    private final List<Piece> pieces;
    private int index;
    private long consumed;

    RangeStream(List<Piece> pieces) {
      this.pieces = pieces;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] target, int from, int count) throws IOException {
      Objects.checkFromIndexSize(from, count, target.length);
      while (index < pieces.size() && consumed == pieces.get(index).length()) {
        index++;
        consumed = 0;
      }
      if (index == pieces.size()) {
        return -1;
      }
      if (count == 0) {
        return 0;
      }
      Piece piece = pieces.get(index);
      int wanted = (int) Math.min(count, piece.length() - consumed);
      long at = piece.position() + consumed;
      int read = piece.channel().read(ByteBuffer.wrap(target, from, wanted), at);
      if (read < 0) {
        throw new EOFException(
            piece.segment().path()
                + " ends at byte "
                + at
                + ", before "
                + (piece.position() + piece.length()));
      }
      consumed += read;
      return read;
    }
  }
}
