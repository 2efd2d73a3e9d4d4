package dev.berth.core.session;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A committed archive of a session's state.
 *
 * @param contents what the archive preserves, e.g. {@code home}, {@code output}, {@code
 *     shell-state}; running processes are never among them
 */
public record ArchiveRef(
    long generation,
    String uri,
    long sizeBytes,
    String sha256,
    Instant createdAt,
    List<String> contents) {

  public ArchiveRef {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(sha256, "sha256");
    Objects.requireNonNull(createdAt, "createdAt");
    contents = List.copyOf(contents);
    if (generation < 1) {
      throw new IllegalArgumentException("archive generation must be >= 1, was " + generation);
    }
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("archive size must be >= 0, was " + sizeBytes);
    }
  }
}
