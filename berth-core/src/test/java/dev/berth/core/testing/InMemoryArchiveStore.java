package dev.berth.core.testing;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.InstantSource;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An archive store in memory, for model tests; it passes the same contract as the real adapters.
 *
 * <p>The archives live in a <em>place</em> (think of a bucket) that outlives the store instance:
 * {@link #restarted()} opens a new instance on the same place, as a restarted process would, and
 * like the real adapters it sweeps the bytes of uploads that were in flight, because a new process
 * owns none of them. Uris are {@code sim://archives/<session>/<generation>}.
 *
 * <p>Committed archives are immutable: committing a generation that exists is refused with {@link
 * AlreadyExistsException}. One monitor (the place's) guards everything; an upload's bytes are
 * written outside it, by the upload's one writer thread. Unlike the real adapters, an upload is
 * held in memory, so keep model-test archives small.
 */
public final class InMemoryArchiveStore implements ArchiveStore {
  private static final String PREFIX = "sim://archives/";

  /** What survives a restart: committed archives and the staged bytes of unfinished uploads. */
  private static final class Place {
    final Map<String, Stored> committed = new HashMap<>();
    final Set<Object> staged = Collections.newSetFromMap(new IdentityHashMap<>());
    long storeEpoch;
  }

  private record Stored(ArchiveRef ref, byte[] bytes) {}

  private final InstantSource clock;
  private final Place place;

  public InMemoryArchiveStore(InstantSource clock) {
    this(clock, new Place());
  }

  private InMemoryArchiveStore(InstantSource clock, Place place) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.place = place;
    synchronized (place) {
      place.staged.clear();
    }
  }

  /** A new store on the same place, as after a crash and restart of the process that used this. */
  public InMemoryArchiveStore restarted() {
    return new InMemoryArchiveStore(clock, place);
  }

  @Override
  public long storeEpochSeen() {
    synchronized (place) {
      return place.storeEpoch;
    }
  }

  @Override
  public void recordStoreEpoch(long epoch) {
    synchronized (place) {
      place.storeEpoch = Math.max(place.storeEpoch, epoch);
    }
  }

  /** Whether a committed archive has this uri. */
  public boolean exists(String uri) {
    synchronized (place) {
      return place.committed.containsKey(uri);
    }
  }

  /** How many unfinished uploads still hold bytes in the place. */
  public int leftovers() {
    synchronized (place) {
      return place.staged.size();
    }
  }

  @Override
  public ArchiveUpload begin(SessionId session, long generation) {
    Objects.requireNonNull(session, "session");
    if (generation < 1) {
      throw new IllegalArgumentException("archive generation must be >= 1, was " + generation);
    }
    String uri = uri(session, generation);
    synchronized (place) {
      if (place.committed.containsKey(uri)) {
        throw alreadyExists(session, generation);
      }
      Upload upload = new Upload(session, generation, uri);
      place.staged.add(upload);
      return upload;
    }
  }

  @Override
  public InputStream open(ArchiveRef archive) {
    synchronized (place) {
      Stored stored = place.committed.get(archive.uri());
      if (stored == null) {
        throw new NotFoundException("archive " + archive.uri());
      }
      return new ByteArrayInputStream(stored.bytes());
    }
  }

  @Override
  public List<ArchiveRef> list(SessionId session) {
    String prefix = PREFIX + session.value() + "/";
    synchronized (place) {
      return place.committed.entrySet().stream()
          .filter(e -> e.getKey().startsWith(prefix))
          .map(e -> e.getValue().ref())
          .sorted(Comparator.comparingLong(ArchiveRef::generation))
          .toList();
    }
  }

  @Override
  public void delete(ArchiveRef archive) {
    synchronized (place) {
      place.committed.remove(archive.uri());
    }
  }

  /** Memory is always writable here. */
  @Override
  public void checkWritable() {
    // Nothing to prove.
  }

  private static String uri(SessionId session, long generation) {
    return PREFIX + session.value() + "/" + generation;
  }

  private static AlreadyExistsException alreadyExists(SessionId session, long generation) {
    return new AlreadyExistsException(
        "archive generation "
            + generation
            + " of session "
            + session.value()
            + " (committed archives are immutable)");
  }

  private final class Upload implements ArchiveUpload {
    private final SessionId session;
    private final long generation;
    private final String uri;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final OutputStream stream =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            ensureWritable();
            bytes.write(b);
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            ensureWritable();
            bytes.write(b, off, len);
          }
        };
    private boolean finished;

    Upload(SessionId session, long generation, String uri) {
      this.session = session;
      this.generation = generation;
      this.uri = uri;
    }

    private void ensureWritable() throws IOException {
      if (finished) {
        throw new IOException(
            "upload of archive generation "
                + generation
                + " of session "
                + session.value()
                + " is finished");
      }
    }

    @Override
    public OutputStream stream() {
      return stream;
    }

    @Override
    public ArchiveRef commit(List<String> contents) {
      Objects.requireNonNull(contents, "contents");
      if (finished) {
        throw new IllegalStateException(
            "upload of archive generation "
                + generation
                + " of session "
                + session.value()
                + " was already committed or closed");
      }
      byte[] data = bytes.toByteArray();
      ArchiveRef ref =
          new ArchiveRef(generation, uri, data.length, sha256(data), clock.instant(), contents);
      synchronized (place) {
        if (place.committed.containsKey(uri)) {
          throw alreadyExists(session, generation);
        }
        place.committed.put(uri, new Stored(ref, data));
        place.staged.remove(this);
        finished = true;
      }
      return ref;
    }

    @Override
    public void close() {
      synchronized (place) {
        place.staged.remove(this);
        finished = true;
      }
      bytes.reset();
    }
  }

  private static String sha256(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JDK", e);
    }
  }
}
