package dev.berth.agent.archive;

import static dev.berth.agent.archive.EntryGate.fail;
import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.WRITE;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdIOException;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import dev.berth.agent.archive.EntryGate.Admitted;
import dev.berth.agent.archive.ManifestCheck.Extracted;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.jspecify.annotations.Nullable;

/**
 * One pass over an archive into a fresh staging directory. Each entry passes the {@link EntryGate}
 * before it touches the disk; directories and files are then created as they come, with {@code
 * O_CREAT|O_EXCL|O_NOFOLLOW}, below a parent whose real path is checked. Symlinks are created only
 * after the whole archive and its manifest verified, so no entry is ever written through one. Files
 * are forced to disk; directory modes and times come last. Not reusable.
 */
final class Extraction {
  private static final FileTime NO_TIME = FileTime.fromMillis(0);

  private final Path staging;
  private final Path realStaging;
  private final ArchiveLimits limits;
  private final Optional<ArchiveIdentity> expected;
  private final EntryGate gate;
  private final List<Extracted> extracted = new ArrayList<>();
  private final List<PendingDir> dirs = new ArrayList<>();

  private record PendingDir(Path dir, int mode, FileTime mtime) {}

  Extraction(Path staging, ArchiveLimits limits, Optional<ArchiveIdentity> expected)
      throws IOException {
    this.staging = staging;
    this.realStaging = staging.toRealPath();
    this.limits = limits;
    this.expected = expected;
    this.gate = new EntryGate(limits);
  }

  Manifest run(InputStream in) throws IOException {
    SourceInput source = new SourceInput(in);
    try (ZstdInputStreamNoFinalizer zstd = new ZstdInputStreamNoFinalizer(source)) {
      zstd.setLongMax(ArchiveFormat.WINDOW_LOG_MAX);
      DecodedInput decoded = new DecodedInput(zstd, source, limits);
      TarArchiveInputStream tar =
          new TarArchiveInputStream(
              decoded, TarConstants.DEFAULT_RCDSIZE, StandardCharsets.UTF_8.name());
      Manifest manifest = readEntries(tar, decoded);
      drain(decoded);
      ManifestCheck.verify(manifest, extracted, expected);
      createLinks();
      finishDirs();
      return manifest;
    }
  }

  private Manifest readEntries(TarArchiveInputStream tar, DecodedInput decoded) throws IOException {
    Manifest manifest = null;
    for (long index = 0; ; index++) {
      TarArchiveEntry entry = nextEntry(tar, decoded);
      if (entry == null) {
        break;
      }
      if (manifest != null) {
        throw fail(
            Violation.ENTRY_AFTER_MANIFEST,
            index,
            entry.getName(),
            "an entry follows the manifest, which must be the last");
      }
      if (entry.getName().equals(ArchiveFormat.MANIFEST_NAME)) {
        manifest = readManifest(tar, entry, index);
      } else {
        extract(tar, entry, index);
      }
    }
    if (manifest == null) {
      throw fail(
          Violation.MISSING_MANIFEST,
          -1,
          null,
          "the archive ends without its manifest (truncated, or not a Berth archive)");
    }
    return manifest;
  }

  private TarArchiveEntry nextEntry(TarArchiveInputStream tar, DecodedInput decoded)
      throws IOException {
    return decode(
        -1,
        null,
        () -> {
          decoded.beginHeader();
          try {
            return tar.getNextEntry();
          } finally {
            decoded.endHeader();
          }
        });
  }

  private Manifest readManifest(TarArchiveInputStream tar, TarArchiveEntry entry, long index)
      throws IOException {
    String name = entry.getName();
    byte flag = entry.getLinkFlag();
    if ((flag != TarConstants.LF_NORMAL && flag != TarConstants.LF_OLDNORM) || entry.isSparse()) {
      throw fail(Violation.BAD_MANIFEST, index, name, "the manifest is not a regular file");
    }
    if (entry.getSize() > limits.maxManifestBytes()) {
      throw fail(
          Violation.ENTRY_SIZE_LIMIT,
          index,
          name,
          "the manifest is "
              + entry.getSize()
              + " bytes; the limit is "
              + limits.maxManifestBytes());
    }
    byte[] json = new byte[(int) entry.getSize()];
    int done = 0;
    while (done < json.length) {
      int offset = done;
      int n = decode(index, name, () -> tar.read(json, offset, json.length - offset));
      if (n < 0) {
        throw fail(Violation.BAD_FRAMING, index, name, "the manifest is truncated");
      }
      done += n;
    }
    return ManifestCodec.read(json);
  }

  private void extract(TarArchiveInputStream tar, TarArchiveEntry entry, long index)
      throws IOException {
    Admitted a = gate.admit(entry, index);
    ManifestEntry result =
        switch (a.type()) {
          case DIR -> createDir(place(a.path(), index), a, entry.getLastModifiedTime());
          case FILE -> createFile(tar, entry, place(a.path(), index), a, index);
          case SYMLINK -> ManifestEntry.symlink(a.path(), entry.getLinkName());
        };
    extracted.add(new Extracted(index, entry.getName(), result));
  }

  /** The entry's file in staging, once its parent's real path is exactly the expected one. */
  private Path place(String path, long index) throws IOException {
    Path file = staging.resolve(path);
    String parent = EntryNames.parent(path);
    Path expectedParent = parent.isEmpty() ? realStaging : realStaging.resolve(parent);
    // The entry's name is not empty, so its file is below staging and has a parent.
    if (!Objects.requireNonNull(file.getParent()).toRealPath().equals(expectedParent)) {
      throw fail(
          Violation.WRITE_THROUGH_LINK,
          index,
          path,
          "the parent directory does not resolve to itself inside the staging directory");
    }
    return file;
  }

  private ManifestEntry createDir(Path dir, Admitted a, FileTime mtime) throws IOException {
    Files.createDirectory(
        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    dirs.add(new PendingDir(dir, a.mode(), mtime == null ? NO_TIME : mtime));
    return ManifestEntry.dir(a.path(), a.mode());
  }

  private ManifestEntry createFile(
      TarArchiveInputStream tar, TarArchiveEntry entry, Path file, Admitted a, long index)
      throws IOException {
    String name = entry.getName();
    MessageDigest sha = ArchiveFormat.sha256();
    byte[] buffer = new byte[64 * 1024];
    long written = 0;
    try (FileChannel out =
        FileChannel.open(
            file,
            Set.of(CREATE_NEW, WRITE, NOFOLLOW_LINKS),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
      for (int n; (n = decode(index, name, () -> tar.read(buffer))) >= 0; written += n) {
        sha.update(buffer, 0, n);
        ByteBuffer chunk = ByteBuffer.wrap(buffer, 0, n);
        while (chunk.hasRemaining()) {
          out.write(chunk);
        }
      }
      out.force(false);
    }
    if (written != entry.getSize()) {
      throw fail(
          Violation.BAD_FRAMING,
          index,
          name,
          "the entry holds " + written + " of its " + entry.getSize() + " bytes");
    }
    Files.setPosixFilePermissions(file, Trees.permissions(a.mode()));
    FileTime mtime = entry.getLastModifiedTime();
    Files.setLastModifiedTime(file, mtime == null ? NO_TIME : mtime);
    return ManifestEntry.file(a.path(), written, a.mode(), ArchiveFormat.hex(sha.digest()));
  }

  /** After tar's end: only zero padding may follow, then the end of the zstd stream. */
  private void drain(DecodedInput decoded) throws IOException {
    byte[] buffer = new byte[8192];
    for (int n; (n = decode(-1, null, () -> decoded.read(buffer))) >= 0; ) {
      for (int i = 0; i < n; i++) {
        if (buffer[i] != 0) {
          throw fail(Violation.TRAILING_DATA, -1, null, "data follows the end of the tar archive");
        }
      }
    }
  }

  private void createLinks() throws IOException {
    for (Map.Entry<String, EntryGate.Link> e : gate.links().entrySet()) {
      Path file = place(e.getKey(), e.getValue().index());
      Files.createSymbolicLink(file, file.getFileSystem().getPath(e.getValue().target()));
    }
  }

  /** Directory modes and times last, deepest first, so that neither blocks nor disturbs a child. */
  private void finishDirs() throws IOException {
    for (int i = dirs.size() - 1; i >= 0; i--) {
      PendingDir d = dirs.get(i);
      Trees.force(d.dir());
      Files.setPosixFilePermissions(d.dir(), Trees.permissions(d.mode()));
      Files.setLastModifiedTime(d.dir(), d.mtime());
    }
    Trees.force(staging);
  }

  /** A read of the archive; its failures are the archive's, except those of the caller's stream. */
  private interface Read<T> {
    T run() throws IOException;
  }

  private static <T> T decode(long index, @Nullable String name, Read<T> read) throws IOException {
    try {
      return read.run();
    } catch (ArchiveException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof SourceInput.SourceFailure source) {
          throw source.original();
        }
        if (t instanceof ZstdIOException z
            && z.getErrorCode() == Zstd.errFrameParameterWindowTooLarge()) {
          throw ArchiveException.of(
              Violation.WINDOW_TOO_LARGE,
              index,
              name,
              "a zstd frame needs a window above " + (1 << ArchiveFormat.WINDOW_LOG_MAX) + " bytes",
              e);
        }
      }
      throw ArchiveException.of(
          Violation.BAD_FRAMING,
          index,
          name,
          "the zstd or tar framing is broken: " + e.getMessage(),
          e);
    }
  }
}
