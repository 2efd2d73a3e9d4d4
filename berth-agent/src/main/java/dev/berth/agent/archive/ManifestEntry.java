package dev.berth.agent.archive;

import java.util.Objects;
import java.util.Optional;

/**
 * One path of an archive as its manifest lists it: relative, {@code /}-separated, without a
 * trailing slash; {@code size} is the content length of a file and 0 otherwise; {@code mode} the
 * permission bits ({@code 0777} for a symlink); {@code sha256} (lowercase hex) only for files and
 * {@code target} only for symlinks.
 */
public record ManifestEntry(
    String path,
    EntryType type,
    long size,
    int mode,
    Optional<String> sha256,
    Optional<String> target) {

  public ManifestEntry {
    Objects.requireNonNull(path, "path is required");
    Objects.requireNonNull(type, "type is required");
    Objects.requireNonNull(sha256, "sha256 is required (may be empty)");
    Objects.requireNonNull(target, "target is required (may be empty)");
  }

  static ManifestEntry file(String path, long size, int mode, String sha256) {
    return new ManifestEntry(
        path, EntryType.FILE, size, mode, Optional.of(sha256), Optional.empty());
  }

  static ManifestEntry dir(String path, int mode) {
    return new ManifestEntry(path, EntryType.DIR, 0, mode, Optional.empty(), Optional.empty());
  }

  static ManifestEntry symlink(String path, String target) {
    return new ManifestEntry(
        path,
        EntryType.SYMLINK,
        0,
        ArchiveFormat.SYMLINK_MODE,
        Optional.empty(),
        Optional.of(target));
  }
}
