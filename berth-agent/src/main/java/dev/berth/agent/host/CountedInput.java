package dev.berth.agent.host;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Counts the bytes read through it: what a restore reports as the archive's size. */
final class CountedInput extends FilterInputStream {

  private long count;

  CountedInput(InputStream in) {
    super(in);
  }

  long count() {
    return count;
  }

  @Override
  public int read() throws IOException {
    int b = in.read();
    if (b >= 0) {
      count++;
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n = in.read(b, off, len);
    if (n > 0) {
      count += n;
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long skipped = in.skip(n);
    count += skipped;
    return skipped;
  }

  // Marking would count the re-read bytes twice; the restorer never needs it.
  @Override
  public boolean markSupported() {
    return false;
  }
}
