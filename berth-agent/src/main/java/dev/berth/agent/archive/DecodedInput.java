package dev.berth.agent.archive;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The decoded tar stream, counted on its way out of zstd: this is where bombs are stopped (the
 * "output path", reliability ). It refuses more than a cap of decoded bytes, a ratio of
 * decoded to compressed bytes above the limit once past the grace, and more than {@value
 * ArchiveFormat#MAX_HEADER_BYTES} bytes consumed while tar reads one header (a PAX or long-name
 * bomb, or an endless chain of extended headers).
 */
final class DecodedInput extends FilterInputStream {
  private static final long OVERHEAD_PER_ENTRY = 8 * 1024;

  private final SourceInput source;
  private final ArchiveLimits limits;
  private final long cap;
  private long count;
  private long headerStart = -1;

  DecodedInput(InputStream decoded, SourceInput source, ArchiveLimits limits) {
    super(decoded);
    this.source = source;
    this.limits = limits;
    this.cap = saturatedSum(limits.maxTotalBytes(), limits.maxEntries(), 1 << 20);
  }

  /** Tar starts reading a header: the bytes it takes until {@link #endHeader()} are bounded. */
  void beginHeader() {
    headerStart = count;
  }

  void endHeader() {
    headerStart = -1;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n = in.read(b, off, len);
    if (n > 0) {
      count += n;
      check();
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

  private static long saturatedSum(long bytes, long entries, long slack) {
    if (entries > Long.MAX_VALUE / OVERHEAD_PER_ENTRY / 2) {
      return Long.MAX_VALUE;
    }
    long sum = bytes + entries * OVERHEAD_PER_ENTRY + slack;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  private void check() {
    if (headerStart >= 0 && count - headerStart > ArchiveFormat.MAX_HEADER_BYTES) {
      throw ArchiveException.of(
          Violation.HEADER_TOO_LARGE,
          "an entry header (with its PAX or long-name records) is longer than "
              + ArchiveFormat.MAX_HEADER_BYTES
              + " bytes");
    }
    if (count > cap) {
      throw ArchiveException.of(
          Violation.TOTAL_BYTES_LIMIT,
          "the archive decodes to more than "
              + cap
              + " bytes of tar (limit from maxTotalBytes and maxEntries)");
    }
    long compressed = Math.max(1, source.count());
    if (count > limits.ratioGraceBytes()
        && compressed <= Long.MAX_VALUE / limits.maxRatio()
        && count > limits.maxRatio() * compressed) {
      throw ArchiveException.of(
          Violation.COMPRESSION_RATIO,
          count
              + " bytes decoded from "
              + source.count()
              + " compressed bytes exceed the ratio limit of "
              + limits.maxRatio()
              + ":1 (a decompression bomb)");
    }
  }
}
