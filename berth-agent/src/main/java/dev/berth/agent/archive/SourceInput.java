package dev.berth.agent.archive;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * The compressed bytes as they come from the caller: counted (for the ratio check), never closed
 * (the caller owns the stream), and with read failures marked so that a restore can tell a broken
 * source (rethrown as it was) from a broken archive ({@code ARCHIVE_CORRUPT}).
 */
final class SourceInput extends FilterInputStream {

  /** A failure of the caller's stream, not of the archive. */
  static final class SourceFailure extends IOException {
    private static final long serialVersionUID = 1L;

    SourceFailure(IOException cause) {
      super(cause.getMessage(), cause);
    }

    IOException original() {
      return (IOException) Objects.requireNonNull(getCause()); // the constructor's
    }
  }

  private long count;

  SourceInput(InputStream in) {
    super(in);
  }

  long count() {
    return count;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n;
    try {
      n = in.read(b, off, len);
    } catch (IOException e) {
      throw new SourceFailure(e);
    }
    if (n > 0) {
      count += n;
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    byte[] buffer = new byte[8192];
    long done = 0;
    while (done < n) {
      int r = read(buffer, 0, (int) Math.min(buffer.length, n - done));
      if (r < 0) {
        break;
      }
      done += r;
    }
    return done;
  }

  @Override
  public boolean markSupported() {
    return false;
  }

  @Override
  public void close() {
    // The caller's stream stays open.
  }
}
