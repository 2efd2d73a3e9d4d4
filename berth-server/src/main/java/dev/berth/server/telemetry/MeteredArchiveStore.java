package dev.berth.server.telemetry;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An archive store whose transfers are measured: {@code berth_archive_transfers_seconds{direction,
 * result}} (an upload from its start to its commit or abort, a download from its open to its close,
 * {@code failed} when reading it threw; the close comes when the restore that read it ends) and
 * {@code berth_archive_bytes_total{direction}} (the committed archives' sizes, the bytes read). A
 * decorator of the port, so that it measures the directory and S3 alike.
 */
public final class MeteredArchiveStore implements ArchiveStore {

  private final ArchiveStore archives;
  private final Meter.MeterProvider<Timer> transfers;
  private final Meter.MeterProvider<Counter> bytes;

  public MeteredArchiveStore(ArchiveStore archives, Telemetry telemetry) {
    this.archives = archives;
    this.transfers =
        telemetry.lifecycleTimer(
            "berth.archive.transfers",
            "Archive uploads (start to commit or abort) and downloads (open to close)");
    this.bytes =
        telemetry.counter(
            "berth.archive.bytes", "Bytes of committed archives written, and of archives read");
  }

  @Override
  public ArchiveUpload begin(SessionId session, long generation) {
    return new Upload(archives.begin(session, generation), System.nanoTime());
  }

  @Override
  public InputStream open(ArchiveRef archive) {
    return new Download(archives.open(archive), System.nanoTime());
  }

  @Override
  public List<ArchiveRef> list(SessionId session) {
    return archives.list(session);
  }

  @Override
  public long storeEpochSeen() {
    return archives.storeEpochSeen();
  }

  @Override
  public void recordStoreEpoch(long epoch) {
    archives.recordStoreEpoch(epoch);
  }

  @Override
  public void delete(ArchiveRef archive) {
    archives.delete(archive);
  }

  @Override
  public void checkWritable() {
    archives.checkWritable();
  }

  private void transferred(String direction, String result, long start) {
    transfers
        .withTags("direction", direction, "result", result)
        .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
  }

  private final class Upload implements ArchiveUpload {
    private final ArchiveUpload upload;
    private final long start;
    private boolean ended;

    Upload(ArchiveUpload upload, long start) {
      this.upload = upload;
      this.start = start;
    }

    @Override
    public OutputStream stream() {
      return upload.stream();
    }

    @Override
    public ArchiveRef commit(List<String> contents) {
      ArchiveRef committed = upload.commit(contents);
      ended = true;
      transferred("write", "committed", start);
      bytes.withTag("direction", "write").increment((double) committed.sizeBytes());
      return committed;
    }

    @Override
    public void close() {
      upload.close();
      if (!ended) {
        ended = true;
        transferred("write", "aborted", start);
      }
    }
  }

  private final class Download extends FilterInputStream {
    private final long start;
    private long read;
    private boolean failed;
    private boolean closed;

    Download(InputStream in, long start) {
      super(in);
      this.start = start;
    }

    @Override
    public int read() throws IOException {
      try {
        int b = super.read();
        if (b >= 0) {
          read++;
        }
        return b;
      } catch (IOException e) {
        failed = true;
        throw e;
      }
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      try {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
          read += n;
        }
        return n;
      } catch (IOException e) {
        failed = true;
        throw e;
      }
    }

    @Override
    public void close() throws IOException {
      super.close();
      if (!closed) {
        closed = true;
        transferred("read", failed ? "failed" : "closed", start);
        bytes.withTag("direction", "read").increment((double) read);
      }
    }
  }
}
