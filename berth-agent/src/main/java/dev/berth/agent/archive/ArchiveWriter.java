package dev.berth.agent.archive;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Streams a tar + zstd archive of a directory tree (see the package documentation for the format).
 * The archive is never held in memory: file content goes from disk through tar and zstd (level 3,
 * frame checksum) to the caller's stream in buffers of a few hundred KiB; what grows with the tree
 * is only its list of paths, which the manifest needs anyway.
 *
 * <p>The workload must not run while its tree is archived (reliability ): a file that changes
 * size while it is copied fails the write with an {@link IOException}, never a torn entry.
 */
public final class ArchiveWriter {

  private ArchiveWriter() {}

  /** Archives everything under {@code root} except lock files. */
  public static ArchiveSummary write(Path root, ArchiveIdentity identity, OutputStream out)
      throws IOException {
    return write(root, identity, path -> false, out);
  }

  /**
   * Archives everything under {@code root} except lock files and the paths {@code exclude} accepts
   * (relative, {@code /}-separated, e.g. {@code home/.cache}; an excluded directory is not
   * entered). Writes the whole archive to {@code out}, flushes it, and leaves it open.
   */
  public static ArchiveSummary write(
      Path root, ArchiveIdentity identity, Predicate<String> exclude, OutputStream out)
      throws IOException {
    if (!Files.isDirectory(root, NOFOLLOW_LINKS)) {
      throw new IllegalArgumentException("archive root " + root + " is not a directory");
    }
    TreeScan.Result scan = TreeScan.scan(root, exclude);
    List<String> skipped = new ArrayList<>(scan.skipped());
    ZstdOutputStreamNoFinalizer zstd =
        new ZstdOutputStreamNoFinalizer(out, ArchiveFormat.ZSTD_LEVEL);
    Manifest manifest;
    try {
      zstd.setChecksum(true);
      TarArchiveOutputStream tar = tar(zstd);
      List<ManifestEntry> written = new ArrayList<>();
      for (TreeScan.Item item : scan.items()) {
        writeItem(tar, item, written, skipped);
      }
      manifest = manifest(identity, written);
      byte[] json = ManifestCodec.write(manifest);
      TarArchiveEntry entry =
          entry(
              ArchiveFormat.MANIFEST_NAME,
              TarConstants.LF_NORMAL,
              0644,
              identity.createdAt().getEpochSecond());
      entry.setSize(json.length);
      tar.putArchiveEntry(entry);
      tar.write(json);
      tar.closeArchiveEntry();
      tar.finish();
    } catch (Throwable failure) {
      try {
        zstd.closeWithoutClosingParentStream();
      } catch (IOException e) {
        failure.addSuppressed(e);
      }
      throw failure;
    }
    zstd.closeWithoutClosingParentStream();
    out.flush();
    return new ArchiveSummary(
        manifest.files().size(), manifest.totalBytes(), manifest.digest(), skipped);
  }

  /**
   * What {@link #write(Path, ArchiveIdentity, OutputStream)} would archive of {@code root} now: the
   * same scan, without writing. On a tree that does not change meanwhile (a paused runtime) the
   * archive then holds exactly this, less a file that turns out unreadable.
   */
  public static ArchivePlan plan(Path root) throws IOException {
    if (!Files.isDirectory(root, NOFOLLOW_LINKS)) {
      throw new IllegalArgumentException("archive root " + root + " is not a directory");
    }
    TreeScan.Result scan = TreeScan.scan(root, path -> false);
    long total = 0;
    long largest = 0;
    for (TreeScan.Item item : scan.items()) {
      total += item.size();
      largest = Math.max(largest, item.size());
    }
    return new ArchivePlan(scan.items().size(), total, largest, scan.skipped());
  }

  static TarArchiveOutputStream tar(OutputStream out) {
    TarArchiveOutputStream tar = new TarArchiveOutputStream(out, StandardCharsets.UTF_8.name());
    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
    tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
    tar.setAddPaxHeadersForNonAsciiNames(true);
    return tar;
  }

  /** An entry built by name (never from a File, which adds libarchive headers), owned by 0:0. */
  static TarArchiveEntry entry(String name, byte type, int mode, long mtimeSeconds) {
    TarArchiveEntry entry = new TarArchiveEntry(name, type);
    entry.setMode(mode);
    entry.setLastModifiedTime(FileTime.from(mtimeSeconds, TimeUnit.SECONDS));
    return entry;
  }

  static Manifest manifest(ArchiveIdentity identity, List<ManifestEntry> files) {
    long total = files.stream().mapToLong(ManifestEntry::size).sum();
    return new Manifest(
        ArchiveFormat.FORMAT,
        identity.session(),
        identity.generation(),
        identity.createdAt(),
        files,
        total,
        ArchiveFormat.digest(files));
  }

  private static void writeItem(
      TarArchiveOutputStream tar,
      TreeScan.Item item,
      List<ManifestEntry> written,
      List<String> skipped)
      throws IOException {
    long mtime = item.mtime().to(TimeUnit.SECONDS);
    switch (item.type()) {
      case DIR -> {
        tar.putArchiveEntry(entry(item.path() + "/", TarConstants.LF_DIR, item.mode(), mtime));
        tar.closeArchiveEntry();
        written.add(ManifestEntry.dir(item.path(), item.mode()));
      }
      case SYMLINK -> {
        String target = Objects.requireNonNull(item.target()); // a symlink's item has one
        TarArchiveEntry entry = entry(item.path(), TarConstants.LF_SYMLINK, item.mode(), mtime);
        entry.setLinkName(target);
        tar.putArchiveEntry(entry);
        tar.closeArchiveEntry();
        written.add(ManifestEntry.symlink(item.path(), target));
      }
      case FILE -> {
        InputStream in;
        try {
          in = Files.newInputStream(item.file(), NOFOLLOW_LINKS);
        } catch (AccessDeniedException e) {
          skipped.add(item.path() + ": the file cannot be read");
          return;
        }
        try (in) {
          TarArchiveEntry entry = entry(item.path(), TarConstants.LF_NORMAL, item.mode(), mtime);
          entry.setSize(item.size());
          tar.putArchiveEntry(entry);
          String sha = copy(in, tar, item);
          tar.closeArchiveEntry();
          written.add(ManifestEntry.file(item.path(), item.size(), item.mode(), sha));
        }
      }
    }
  }

  /** Copies exactly the size seen by the scan, hashing as it goes; the file must not change. */
  private static String copy(InputStream in, OutputStream tar, TreeScan.Item item)
      throws IOException {
    MessageDigest sha = ArchiveFormat.sha256();
    byte[] buffer = new byte[64 * 1024];
    long left = item.size();
    while (left > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (n < 0) {
        throw changed(item);
      }
      sha.update(buffer, 0, n);
      tar.write(buffer, 0, n);
      left -= n;
    }
    if (in.read() >= 0) {
      throw changed(item);
    }
    return ArchiveFormat.hex(sha.digest());
  }

  private static IOException changed(TreeScan.Item item) {
    return new IOException(
        item.file()
            + " changed size while it was archived (expected "
            + item.size()
            + " bytes); stop the workload before archiving its state");
  }
}
