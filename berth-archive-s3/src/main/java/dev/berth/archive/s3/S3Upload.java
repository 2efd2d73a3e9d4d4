package dev.berth.archive.s3;

import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * One upload: a multipart upload of the data object, fed part by part from one buffer that grows up
 * to the part size, while the bytes pass through the whole archive's SHA-256 and counter. Used by
 * one thread, as the port says. See {@link S3ArchiveStore} for the commit order.
 */
final class S3Upload implements ArchiveUpload {
  private static final Logger LOG = LoggerFactory.getLogger(S3Upload.class);

  /** Small archives never take a whole part's memory: the buffer starts here and doubles. */
  private static final int FIRST_BUFFER = 64 * 1024;

  private enum State {
    WRITING,
    /** A commit was tried and failed; only {@link #close} is left to do. */
    FAILED,
    COMMITTED,
    CLOSED
  }

  private final S3ArchiveStore store;
  private final Bucket bucket;
  private final SessionId session;
  private final long generation;
  private final String dataName;
  private final String dataKey;
  private final String uploadId;
  private final int partSize;
  private final MessageDigest digest = dev.berth.core.digest.Sha256.newDigest();
  private final List<CompletedPart> parts = new ArrayList<>();
  private final OutputStream stream = new Parts();
  private byte[] buffer = new byte[FIRST_BUFFER];
  private int filled;
  private long size;
  private boolean streamClosed;
  private State state = State.WRITING;

  /** Whether the data object exists: the multipart upload was completed. */
  private boolean completed;

  /** Whether the marker was sent: after that, the archive may be committed even if we failed. */
  private boolean markerSent;

  S3Upload(S3ArchiveStore store, Bucket bucket, Target target, int partSize) {
    this.store = store;
    this.bucket = bucket;
    this.session = target.session();
    this.generation = target.generation();
    this.dataName = target.dataName();
    this.dataKey = target.dataKey();
    this.uploadId = target.uploadId();
    this.partSize = partSize;
  }

  /** Where an upload goes: its data object and the multipart upload that writes it. */
  record Target(
      SessionId session, long generation, String dataName, String dataKey, String uploadId) {}

  private String subject() {
    return "upload of archive generation %d of session %s".formatted(generation, session.value());
  }

  @Override
  public OutputStream stream() {
    return stream;
  }

  /**
   * Sends the last part, completes the data object and writes the marker if it is absent; see the
   * package documentation for why in this order.
   */
  @Override
  public ArchiveRef commit(List<String> contents) {
    List<String> described = List.copyOf(contents);
    if (state != State.WRITING) {
      throw new IllegalStateException(subject() + " was already committed or closed");
    }
    state = State.FAILED; // until the marker is written
    if (filled > 0 || parts.isEmpty()) {
      sendPart(); // the last part, which may be short (or empty, for an empty archive)
    }
    // Checked before the data object is made, so that a refused commit costs no complete; the
    // conditional put of the marker below is what decides a race.
    if (bucket.exists(store.keys().marker(session, generation))) {
      throw store.alreadyExists(session, generation);
    }
    bucket.completeUpload(dataKey, uploadId, parts);
    completed = true;
    store.failpoints().reach("archive.commit.completed");
    buffer = new byte[0];
    ArchiveRef ref =
        new ArchiveRef(
            generation,
            store.keys().uri(session, generation),
            size,
            HexFormat.of().formatHex(digest.digest()),
            store.clock().instant(),
            described);
    markerSent = true;
    if (!bucket.putIfAbsent(
        store.keys().marker(session, generation), new Marker(dataName, ref).write(session))) {
      try {
        bucket.delete(dataKey);
        completed = false;
      } catch (UncheckedIOException e) {
        // The refusal is the answer; the data object, which no marker names, is a leftover.
        LOG.warn(
            "cannot remove the data object of the refused {}; a later sweep will", subject(), e);
      }
      throw store.alreadyExists(session, generation);
    }
    state = State.COMMITTED;
    store.finished(dataKey);
    return ref;
  }

  @Override
  public void close() {
    if (state == State.COMMITTED || state == State.CLOSED) {
      return;
    }
    state = State.CLOSED;
    buffer = new byte[0];
    try {
      if (!completed) {
        bucket.abortUpload(dataKey, uploadId);
      } else if (!markerSent) {
        bucket.delete(dataKey);
      }
      // Otherwise the marker may have been written though its answer was lost: the data object
      // stays, and a sweep removes it if no marker names it.
    } catch (UncheckedIOException e) {
      LOG.warn("cannot clean up after the {}; a later sweep will", subject(), e);
    } finally {
      store.finished(dataKey);
    }
  }

  private void sendPart() {
    parts.add(bucket.uploadPart(dataKey, uploadId, parts.size() + 1, buffer, filled));
    filled = 0;
  }

  /** Room for at least one more byte, growing the buffer up to a part and sending a full one. */
  private void makeRoom() {
    if (filled < buffer.length) {
      return;
    }
    if (buffer.length < partSize) {
      buffer = Arrays.copyOf(buffer, Math.min(partSize, buffer.length * 2));
    } else {
      sendPart();
    }
  }

  /** Buffers, counts and hashes what the caller writes; closing it only ends the writing. */
  private final class Parts extends OutputStream {
    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      Objects.checkFromIndexSize(off, len, b.length);
      if (streamClosed || state != State.WRITING) {
        throw new IOException("the " + subject() + " takes no more bytes");
      }
      digest.update(b, off, len);
      size += len;
      try {
        for (int done = 0; done < len; ) {
          makeRoom();
          int n = Math.min(len - done, buffer.length - filled);
          System.arraycopy(b, off + done, buffer, filled, n);
          filled += n;
          done += n;
        }
      } catch (UncheckedIOException e) {
        state = State.FAILED; // a part is lost: the archive can no longer be whole
        throw e.getCause();
      }
    }

    @Override
    public void close() {
      streamClosed = true;
    }
  }
}
