package dev.berth.agent.archive;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Compares what was extracted with what the manifest promises: format, identity, the digest over
 * the manifest's own list, then entry by entry (type, size, mode, SHA-256 or target), both ways,
 * and the total. Any difference is {@code ARCHIVE_CORRUPT}.
 */
final class ManifestCheck {

  /** An extracted entry and where it was in the archive. */
  record Extracted(long index, String name, ManifestEntry entry) {}

  private ManifestCheck() {}

  static void verify(Manifest m, List<Extracted> extracted, Optional<ArchiveIdentity> expected) {
    if (m.format() != ArchiveFormat.FORMAT) {
      throw manifest(
          Violation.BAD_MANIFEST,
          "format "
              + m.format()
              + " is not supported; this agent reads format "
              + ArchiveFormat.FORMAT);
    }
    if (expected.isPresent() && !expected.get().sameArchiveAs(m.identity())) {
      throw manifest(
          Violation.IDENTITY_MISMATCH,
          "the archive is generation "
              + m.generation()
              + " of session "
              + m.session()
              + ", not generation "
              + expected.get().generation()
              + " of session "
              + expected.get().session());
    }
    if (!ArchiveFormat.digest(m.files()).equals(m.digest())) {
      throw manifest(Violation.DIGEST_MISMATCH, "the manifest digest does not match its file list");
    }
    Map<String, ManifestEntry> listed = new LinkedHashMap<>();
    long total = 0;
    for (ManifestEntry e : m.files()) {
      if (listed.put(e.path(), e) != null) {
        throw manifest(Violation.BAD_MANIFEST, "the manifest lists \"" + e.path() + "\" twice");
      }
      total += e.size();
    }
    if (total != m.totalBytes()) {
      throw manifest(
          Violation.BAD_MANIFEST,
          "totalBytes is " + m.totalBytes() + " but the files add up to " + total);
    }
    for (Extracted x : extracted) {
      compare(x, listed.remove(x.entry().path()));
    }
    if (!listed.isEmpty()) {
      throw manifest(
          Violation.MISSING_FROM_ARCHIVE,
          "the manifest lists \""
              + listed.keySet().iterator().next()
              + "\" but the archive does not hold it");
    }
  }

  private static void compare(Extracted x, @Nullable ManifestEntry listed) {
    if (listed == null) {
      throw ArchiveException.of(
          Violation.NOT_IN_MANIFEST, x.index(), x.name(), "the entry is not in the manifest", null);
    }
    if (!listed.equals(x.entry())) {
      throw ArchiveException.of(
          Violation.ENTRY_MISMATCH,
          x.index(),
          x.name(),
          "the entry differs from the manifest: archive has "
              + x.entry()
              + ", manifest lists "
              + listed,
          null);
    }
  }

  private static ArchiveException manifest(Violation violation, String detail) {
    return ArchiveException.of(violation, -1, ArchiveFormat.MANIFEST_NAME, detail, null);
  }
}
