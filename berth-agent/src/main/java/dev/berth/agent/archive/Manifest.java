package dev.berth.agent.archive;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The last entry of every archive, {@value ArchiveFormat#MANIFEST_NAME}: format version, identity,
 * every entry in archive order, the total file bytes and a SHA-256 digest over the canonical file
 * list (see {@link ArchiveFormat}).
 */
public record Manifest(
    int format,
    String session,
    long generation,
    Instant createdAt,
    List<ManifestEntry> files,
    long totalBytes,
    String digest) {

  public Manifest {
    Objects.requireNonNull(session, "session is required");
    Objects.requireNonNull(createdAt, "createdAt is required");
    Objects.requireNonNull(digest, "digest is required");
    files = List.copyOf(files);
  }

  public ArchiveIdentity identity() {
    return new ArchiveIdentity(session, generation, createdAt);
  }
}
