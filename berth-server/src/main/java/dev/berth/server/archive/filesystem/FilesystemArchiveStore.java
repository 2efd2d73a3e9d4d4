package dev.berth.server.archive.filesystem;

import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.lifecycle.Failpoints;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Session archives as files in one directory (by default in the server's data directory).
 *
 * <p>Layout: {@code <root>/<session>/<generation>.tar.zst} holds the archive bytes and {@code
 * <root>/<session>/<generation>.json} (the sidecar, see {@link Sidecar}) the rest of its {@link
 * ArchiveRef}. An upload streams into {@code <root>/<session>/.upload-<generation>-<random>.tmp},
 * hashing (SHA-256) and counting the bytes as they pass, so an archive is never held in memory. The
 * root, the session directories and every file are private to the server's user (0700 and 0600),
 * created so.
 *
 * <p>Commit, in this order: flush and {@code fsync} the temporary file; write the sidecar to a
 * temporary file, {@code fsync} it, rename it to {@code <generation>.json} and {@code fsync} the
 * directory; rename the archive to {@code <generation>.tar.zst} ({@code ATOMIC_MOVE}) and {@code
 * fsync} the directory again. The rename of the archive is the commit point: before it nothing is
 * visible, after it the archive is complete and already described, so {@link #list} never returns a
 * half-described archive and a reader never sees a partial one. Delete goes the other way (archive
 * first, then its sidecar).
 *
 * <p>What a crash can leave, and what happens to it: temporary files (removed by {@link #sweep},
 * which runs at construction); a sidecar whose archive was never renamed into place, or was deleted
 * (not listed, removed by {@link #sweep}); an archive without a readable sidecar, which this store
 * never writes but damage or a hand-made copy can (not listed, logged, and kept, because its bytes
 * may be the only copy of a session that a ref in the session store still points at; {@link
 * #delete} removes it).
 *
 * <p>Committed archives are immutable: a second commit of a generation that exists is refused with
 * {@link AlreadyExistsException}, checked at {@link #begin} (to fail before streaming gigabytes)
 * and again at commit, under the store's lock, before the rename.
 *
 * <p>References are {@code archive://<session>/<generation>}: relative to the root, so they do not
 * show host paths to API clients and stay valid when the data directory moves. {@link #open} and
 * {@link #delete} go by the reference's uri; a uri of another form is not in this store.
 *
 * <p><b>One writer per root.</b> The store assumes that no other process writes under its root,
 * which the server guarantees with its data-directory lock ({@code server.lock}). Within the
 * process, one lock orders commits, deletes, listings and sweeps; bytes are streamed and synced
 * outside it. Because a new process owns no upload in flight, the sweep at construction removes
 * every temporary file it finds; a later {@link #sweep} spares the uploads of this instance.
 *
 * <p>Implementation note on its size (over 400 lines): the commit order, the delete order and the
 * sweep of what a crash left are one crash-safety argument over one directory layout, one lock and
 * one set of uploads in flight, which the {@code Upload} inner class shares; kept in one file, the
 * argument can be read (and checked against the crash points) in one place.
 */
public final class FilesystemArchiveStore implements ArchiveStore {
  private static final Logger LOG = LoggerFactory.getLogger(FilesystemArchiveStore.class);

  static final String SCHEME = "archive";
  static final String ARCHIVE_SUFFIX = ".tar.zst";
  static final String SIDECAR_SUFFIX = ".json";
  static final String TEMP_PREFIX = ".upload-";
  private static final Pattern URI =
      Pattern.compile(SCHEME + "://([0-9a-f]{32})/([1-9][0-9]{0,18})");
  private static final Pattern ARCHIVE_NAME = Pattern.compile("([1-9][0-9]{0,18})\\.tar\\.zst");
  private static final Pattern SIDECAR_NAME = Pattern.compile("([1-9][0-9]{0,18})\\.json");
  private static final Pattern SESSION_NAME = Pattern.compile("[0-9a-f]{32}");
  private static final int BUFFER = 64 * 1024;

  private final Path root;
  private final EpochMarkFile epochMark;
  private final InstantSource clock;
  private final Failpoints failpoints;
  private final boolean posix;
  private final ReentrantLock lock = new ReentrantLock();

  /** Temporary files of this instance's uploads in flight; {@link #sweep} spares them. */
  private final Set<Path> inFlight = ConcurrentHashMap.newKeySet();

  /** Archives whose missing or unreadable sidecar was logged already; guarded by {@link #lock}. */
  private final Set<Path> reported = new HashSet<>();

  /**
   * Opens the store at {@code root}, creating the directory if needed, and sweeps what a crashed
   * earlier process left there.
   */
  public FilesystemArchiveStore(Path root, InstantSource clock) {
    this(root, clock, Failpoints.NONE);
  }

  /**
   * As {@link #FilesystemArchiveStore(Path, InstantSource)}, with crash points for tests: {@code
   * archive.commit.synced} (bytes durable, nothing renamed), {@code archive.commit.described}
   * (sidecar in place, archive not), {@code archive.commit.renamed} (archive in place, directory
   * not yet synced) and {@code archive.delete.removed} (archive gone, sidecar not).
   */
  public FilesystemArchiveStore(Path root, InstantSource clock, Failpoints failpoints) {
    this.root = root.toAbsolutePath().normalize();
    this.epochMark = new EpochMarkFile(this.root);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.failpoints = Objects.requireNonNull(failpoints, "failpoints");
    this.posix = this.root.getFileSystem().supportedFileAttributeViews().contains("posix");
    io(
        "create the archive directory " + this.root,
        () -> Files.createDirectories(this.root, privateDirectory()));
    sweep();
  }

  @Override
  public ArchiveUpload begin(SessionId session, long generation) {
    Objects.requireNonNull(session, "session");
    if (generation < 1) {
      throw new IllegalArgumentException("archive generation must be >= 1, was " + generation);
    }
    Path dir = root.resolve(session.value());
    Path temp =
        locked(
            () ->
                io(
                    "start archive generation " + generation + " of session " + session.value(),
                    () -> {
                      if (!Files.isDirectory(dir)) {
                        Files.createDirectory(dir, privateDirectory());
                        fsyncDirectory(root);
                      }
                      if (Files.exists(archiveFile(dir, generation))) {
                        throw alreadyExists(session, generation);
                      }
                      Path created = tempFile(dir, generation, ".tmp");
                      inFlight.add(created);
                      return created;
                    }));
    try {
      return new Upload(session, generation, dir, temp);
    } catch (IOException e) {
      deleteQuietly(temp);
      inFlight.remove(temp);
      throw new UncheckedIOException("cannot write the archive upload " + temp, e);
    }
  }

  @Override
  public InputStream open(ArchiveRef archive) {
    Location at = locate(archive).orElseThrow(() -> notFound(archive));
    try {
      return Files.newInputStream(archiveFile(root.resolve(at.session()), at.generation()));
    } catch (NoSuchFileException e) {
      throw notFound(archive);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open archive " + archive.uri(), e);
    }
  }

  @Override
  public List<ArchiveRef> list(SessionId session) {
    Path dir = root.resolve(session.value());
    return locked(
        () ->
            io(
                "list the archives of session " + session.value(),
                () -> {
                  if (!Files.isDirectory(dir)) {
                    return List.of();
                  }
                  List<ArchiveRef> refs = new ArrayList<>();
                  try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                    for (Path file : files) {
                      Matcher m = ARCHIVE_NAME.matcher(file.getFileName().toString());
                      if (m.matches()) {
                        described(session, Long.parseLong(m.group(1)), file).ifPresent(refs::add);
                      }
                    }
                  }
                  refs.sort(Comparator.comparingLong(ArchiveRef::generation));
                  return List.copyOf(refs);
                }));
  }

  @Override
  public void delete(ArchiveRef archive) {
    Optional<Location> at = locate(archive);
    if (at.isEmpty()) {
      return;
    }
    Path dir = root.resolve(at.get().session());
    long generation = at.get().generation();
    locked(
        () ->
            io(
                "delete archive " + archive.uri(),
                () -> {
                  Path file = archiveFile(dir, generation);
                  reported.remove(file);
                  boolean removed = Files.deleteIfExists(file);
                  if (removed) {
                    failpoints.reach("archive.delete.removed");
                  }
                  removed |= Files.deleteIfExists(sidecarFile(dir, generation));
                  if (removed) {
                    fsyncDirectory(dir);
                    removeIfEmpty(dir);
                  }
                  return removed;
                }));
  }

  /**
   * Removes what interrupted uploads and deletes left under the root: temporary files of uploads
   * that this instance does not have in flight, sidecars without their archive, and empty session
   * directories. Runs at construction; safe to call at any time.
   *
   * @return how many files and directories it removed
   */
  public int sweep() {
    return locked(
        () ->
            io(
                "sweep the archive directory " + root,
                () -> {
                  int removed = 0;
                  try (DirectoryStream<Path> sessions = Files.newDirectoryStream(root)) {
                    for (Path dir : sessions) {
                      if (SESSION_NAME.matcher(dir.getFileName().toString()).matches()
                          && Files.isDirectory(dir)) {
                        removed += sweep(dir);
                      }
                    }
                  }
                  if (removed > 0) {
                    LOG.info(
                        "archive store {}: removed {} leftovers of interrupted uploads and deletes",
                        root,
                        removed);
                  }
                  return removed;
                }));
  }

  private int sweep(Path dir) throws IOException {
    int removed = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        Matcher sidecar = SIDECAR_NAME.matcher(name);
        boolean leftover =
            name.startsWith(TEMP_PREFIX)
                ? !inFlight.contains(file)
                : sidecar.matches()
                    && !Files.exists(archiveFile(dir, Long.parseLong(sidecar.group(1))));
        if (leftover && Files.deleteIfExists(file)) {
          removed++;
        }
      }
    }
    if (removed > 0) {
      fsyncDirectory(dir);
    }
    return removed + (removeIfEmpty(dir) ? 1 : 0);
  }

  /** The ref that {@code archive}'s sidecar describes, if it is readable and fits the file. */
  private Optional<ArchiveRef> described(SessionId session, long generation, Path archive)
      throws IOException {
    // An archive file is always in its session's directory.
    Path sidecar = sidecarFile(Objects.requireNonNull(archive.getParent()), generation);
    String uri = uri(session, generation);
    byte[] body;
    try {
      body = Files.readAllBytes(sidecar);
    } catch (NoSuchFileException e) {
      return undescribed(archive, uri, "has no sidecar " + sidecar);
    }
    Optional<ArchiveRef> ref = Sidecar.read(body, session, generation, uri);
    if (ref.isEmpty()) {
      return undescribed(archive, uri, "has a sidecar " + sidecar + " that is unreadable");
    }
    long size = Files.size(archive);
    if (ref.get().sizeBytes() != size) {
      return undescribed(
          archive, uri, "has " + size + " bytes where its sidecar says " + ref.get().sizeBytes());
    }
    reported.remove(archive);
    return ref;
  }

  /** Leaves an archive this store cannot describe out of listings, and says so once. */
  private Optional<ArchiveRef> undescribed(Path archive, String uri, String problem) {
    if (reported.add(archive)) {
      LOG.warn(
          "archive {} ({}) {}: it is not listed, and kept until it is deleted; repair or delete"
              + " it by hand",
          uri,
          archive,
          problem);
    }
    return Optional.empty();
  }

  /** Where a ref points to in this store, if it is one of this store's uris. */
  private static Optional<Location> locate(ArchiveRef archive) {
    Matcher m = URI.matcher(archive.uri());
    if (!m.matches()) {
      return Optional.empty();
    }
    long generation;
    try {
      generation = Long.parseLong(m.group(2));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    return generation == archive.generation()
        ? Optional.of(new Location(m.group(1), generation))
        : Optional.empty();
  }

  private record Location(String session, long generation) {}

  static String uri(SessionId session, long generation) {
    return SCHEME + "://" + session.value() + "/" + generation;
  }

  static Path archiveFile(Path dir, long generation) {
    return dir.resolve(generation + ARCHIVE_SUFFIX);
  }

  static Path sidecarFile(Path dir, long generation) {
    return dir.resolve(generation + SIDECAR_SUFFIX);
  }

  private Path tempFile(Path dir, long generation, String suffix) throws IOException {
    return posix
        ? Files.createTempFile(
            dir,
            TEMP_PREFIX + generation + "-",
            suffix,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
        : Files.createTempFile(dir, TEMP_PREFIX + generation + "-", suffix);
  }

  private FileAttribute<?>[] privateDirectory() {
    return posix
        ? new FileAttribute<?>[] {
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))
        }
        : new FileAttribute<?>[0];
  }

  /** Makes the entries of {@code dir} (creations, renames, deletions) durable. */
  private static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  private boolean removeIfEmpty(Path dir) throws IOException {
    try {
      return Files.deleteIfExists(dir);
    } catch (DirectoryNotEmptyException e) {
      return false;
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.warn("cannot remove {}; the next sweep will", file, e);
    }
  }

  private static AlreadyExistsException alreadyExists(SessionId session, long generation) {
    return new AlreadyExistsException(
        "archive generation "
            + generation
            + " of session "
            + session.value()
            + " (committed archives are immutable)");
  }

  private static NotFoundException notFound(ArchiveRef archive) {
    return new NotFoundException("archive " + archive.uri());
  }

  private <T> T locked(Supplier<T> action) {
    lock.lock();
    try {
      return action.get();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public long storeEpochSeen() {
    return epochMark.read();
  }

  @Override
  public void recordStoreEpoch(long epoch) {
    epochMark.raise(epoch);
  }

  @Override
  public void checkWritable() {
    io(
        "write a probe into the archive directory " + root,
        () -> {
          // Named unlike a session directory, so that no sweep or listing looks at it.
          Path probe =
              posix
                  ? Files.createTempFile(
                      root,
                      ".probe-",
                      ".tmp",
                      PosixFilePermissions.asFileAttribute(
                          PosixFilePermissions.fromString("rw-------")))
                  : Files.createTempFile(root, ".probe-", ".tmp");
          try {
            Files.write(probe, new byte[] {1});
          } finally {
            Files.deleteIfExists(probe);
          }
          return probe;
        });
  }

  @FunctionalInterface
  private interface IoAction<T> {
    T run() throws IOException;
  }

  private static <T> T io(String what, IoAction<T> action) {
    try {
      return action.run();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot " + what + ": " + e.getMessage(), e);
    }
  }

  private static MessageDigest sha256() {
    return dev.berth.core.digest.Sha256.newDigest();
  }

  /**
   * One upload: bytes go through a buffer into the temporary file and, once written, into the
   * digest and the counter. Used by one thread, like the port says.
   */
  private final class Upload implements ArchiveUpload {
    private enum State {
      WRITING,
      /** A commit was tried and failed; only {@link #close} is left to do. */
      FAILED,
      COMMITTED,
      CLOSED
    }

    private final SessionId session;
    private final long generation;
    private final Path dir;
    private final Path temp;
    private final FileChannel channel;
    private final OutputStream file;
    private final MessageDigest digest = sha256();
    private final OutputStream stream = new Hashing();
    private long size;
    private boolean streamClosed;
    private State state = State.WRITING;

    Upload(SessionId session, long generation, Path dir, Path temp) throws IOException {
      this.session = session;
      this.generation = generation;
      this.dir = dir;
      this.temp = temp;
      this.channel = FileChannel.open(temp, StandardOpenOption.WRITE);
      this.file = new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER);
    }

    private String subject() {
      return "upload of archive generation " + generation + " of session " + session.value();
    }

    @Override
    public OutputStream stream() {
      return stream;
    }

    @Override
    public ArchiveRef commit(List<String> contents) {
      Objects.requireNonNull(contents, "contents");
      if (state != State.WRITING) {
        throw new IllegalStateException(subject() + " was already committed or closed");
      }
      state = State.FAILED;
      try {
        file.flush();
        channel.force(true);
        channel.close();
        failpoints.reach("archive.commit.synced");
        ArchiveRef ref =
            new ArchiveRef(
                generation,
                uri(session, generation),
                size,
                HexFormat.of().formatHex(digest.digest()),
                clock.instant(),
                contents);
        Path sidecarTemp =
            locked(
                () ->
                    io(
                        "describe the " + subject(),
                        () -> {
                          Path created = tempFile(dir, generation, SIDECAR_SUFFIX + ".tmp");
                          inFlight.add(created);
                          return created;
                        }));
        try {
          writeDurably(sidecarTemp, Sidecar.write(session, ref));
          lock.lock();
          try {
            rename(sidecarTemp);
          } finally {
            lock.unlock();
          }
        } finally {
          inFlight.remove(sidecarTemp);
          Files.deleteIfExists(sidecarTemp);
        }
        state = State.COMMITTED;
        inFlight.remove(temp);
        return ref;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot commit the " + subject() + ": " + e.getMessage(), e);
      }
    }

    /** The commit point; called under the store's lock. */
    private void rename(Path sidecarTemp) throws IOException {
      Path archive = archiveFile(dir, generation);
      if (Files.exists(archive)) {
        throw alreadyExists(session, generation);
      }
      Files.move(sidecarTemp, sidecarFile(dir, generation), StandardCopyOption.ATOMIC_MOVE);
      fsyncDirectory(dir);
      failpoints.reach("archive.commit.described");
      Files.move(temp, archive, StandardCopyOption.ATOMIC_MOVE);
      failpoints.reach("archive.commit.renamed");
      fsyncDirectory(dir);
    }

    @Override
    public void close() {
      if (state == State.COMMITTED || state == State.CLOSED) {
        return;
      }
      state = State.CLOSED;
      try {
        channel.close();
      } catch (IOException e) {
        LOG.warn("cannot close the {}", subject(), e);
      }
      // After a commit that failed past its rename, temp is gone and the archive stays: its
      // outcome is unknown to the caller, and list shows it.
      deleteQuietly(temp);
      inFlight.remove(temp);
      lock.lock();
      try {
        removeIfEmpty(dir);
      } catch (IOException e) {
        LOG.warn("cannot remove the empty directory {}; the next sweep will", dir, e);
      } finally {
        lock.unlock();
      }
    }

    private static void writeDurably(Path target, byte[] body) throws IOException {
      try (FileChannel out = FileChannel.open(target, StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(body);
        while (buffer.hasRemaining()) {
          out.write(buffer);
        }
        out.force(true);
      }
    }

    /** Counts and hashes what the caller writes; closing it only ends the writing. */
    private final class Hashing extends OutputStream {
      @Override
      public void write(int b) throws IOException {
        ensureWritable();
        file.write(b);
        digest.update((byte) b);
        size++;
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        ensureWritable();
        file.write(b, off, len);
        digest.update(b, off, len);
        size += len;
      }

      @Override
      public void flush() throws IOException {
        if (state == State.WRITING) {
          file.flush();
        }
      }

      @Override
      public void close() throws IOException {
        flush();
        streamClosed = true;
      }

      private void ensureWritable() throws IOException {
        if (streamClosed || state != State.WRITING) {
          throw new IOException("the " + subject() + " takes no more bytes");
        }
      }
    }
  }
}
