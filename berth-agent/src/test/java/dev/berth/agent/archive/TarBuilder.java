package dev.berth.agent.archive;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Writes archives by hand, including ones {@link ArchiveWriter} never would: any name, any entry
 * type, any mode, a manifest that lies. Entries written through the listed methods also go into the
 * manifest; {@link #raw} entries do not. Deterministic: fixed times and owners, zstd level 3 on one
 * thread, so the same calls give the same bytes.
 */
final class TarBuilder {
  static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  static final ArchiveIdentity IDENTITY = new ArchiveIdentity("s-hostile", 7, CREATED);
  private static final FileTime MTIME = FileTime.from(CREATED);

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final TarArchiveOutputStream tar = ArchiveWriter.tar(bytes);
  private final List<ManifestEntry> listed = new ArrayList<>();

  TarBuilder dir(String path) {
    return dir(path, 0755);
  }

  TarBuilder dir(String path, int mode) {
    listed.add(ManifestEntry.dir(path, mode));
    return raw(entry(path + "/", TarConstants.LF_DIR, mode), new byte[0]);
  }

  TarBuilder file(String path, String content) {
    return file(path, content.getBytes(UTF_8), 0644);
  }

  TarBuilder file(String path, byte[] content, int mode) {
    listed.add(ManifestEntry.file(path, content.length, mode, sha256(content)));
    return raw(entry(path, TarConstants.LF_NORMAL, mode), content);
  }

  TarBuilder symlink(String path, String target) {
    listed.add(ManifestEntry.symlink(path, target));
    TarArchiveEntry e = entry(path, TarConstants.LF_SYMLINK, 0777);
    e.setLinkName(target);
    return raw(e, new byte[0]);
  }

  /** Lists an entry in the manifest without writing it. */
  TarBuilder listOnly(ManifestEntry entry) {
    listed.add(entry);
    return this;
  }

  /** Writes an entry (with {@code content} as its data) that the manifest does not list. */
  TarBuilder raw(TarArchiveEntry entry, byte[] content) {
    try {
      if (!entry.isDirectory() && !entry.isSymbolicLink() && !entry.isLink()) {
        entry.setSize(content.length);
      }
      tar.putArchiveEntry(entry);
      tar.write(content);
      tar.closeArchiveEntry();
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  TarBuilder manifest() {
    return manifest(IDENTITY, m -> m);
  }

  /** Writes the manifest of the listed entries as {@code edit} changes it. */
  TarBuilder manifest(ArchiveIdentity identity, UnaryOperator<Manifest> edit) {
    byte[] json = ManifestCodec.write(edit.apply(ArchiveWriter.manifest(identity, listed)));
    return raw(entry(ArchiveFormat.MANIFEST_NAME, TarConstants.LF_NORMAL, 0644), json);
  }

  /** The finished, uncompressed tar. */
  byte[] tar() {
    try {
      tar.finish();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The finished tar, zstd-compressed as the writer does it. */
  byte[] archive() {
    return zstd(tar());
  }

  /** An entry by name (absolute names kept as they are), owned by 0:0, with a fixed time. */
  static TarArchiveEntry entry(String name, byte type, int mode) {
    TarArchiveEntry e = new TarArchiveEntry(name, type, true);
    e.setMode(mode);
    e.setLastModifiedTime(MTIME);
    return e;
  }

  static byte[] zstd(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ZstdOutputStreamNoFinalizer z =
        new ZstdOutputStreamNoFinalizer(out, ArchiveFormat.ZSTD_LEVEL)) {
      z.setChecksum(true);
      z.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  static String sha256(byte[] content) {
    return ArchiveFormat.hex(ArchiveFormat.sha256().digest(content));
  }

  /** Incompressible bytes, the same for the same seed. */
  static byte[] noise(int length, long seed) {
    byte[] bytes = new byte[length];
    new SplittableRandom(seed).nextBytes(bytes);
    return bytes;
  }
}
