package dev.berth.core.session;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A committed archive of a session's state.
 *
 * @param contents what the archive preserves, e.g. {@code home}, {@code output}, {@code
 *     shell-state}; running processes are never among them
 * @param source the runtime the archive was taken from, whose resources a suspend reclaimed (the
 *     original's {@code checkpoint.reclaimed}); empty until the session records it
 * @param skipped what the state held and the archive leaves out (a socket, a FIFO, a device), each
 *     with its reason: nothing is dropped silently
 */
public record ArchiveRef(
    long generation,
    String uri,
    long sizeBytes,
    String sha256,
    Instant createdAt,
    List<String> contents,
    Optional<String> source,
    List<Skipped> skipped) {

  /** At most this many skipped entries are kept by name; {@link Skipped#MORE} counts the rest. */
  public static final int MAX_SKIPPED = 100;

  public ArchiveRef {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(sha256, "sha256");
    Objects.requireNonNull(createdAt, "createdAt");
    contents = List.copyOf(contents);
    source = Objects.requireNonNullElse(source, Optional.empty());
    skipped = List.copyOf(Objects.requireNonNullElse(skipped, List.of()));
    if (generation < 1) {
      throw new IllegalArgumentException("archive generation must be >= 1, was " + generation);
    }
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("archive size must be >= 0, was " + sizeBytes);
    }
    if (skipped.size() > MAX_SKIPPED + 1) {
      throw new IllegalArgumentException(
          "an archive names at most "
              + MAX_SKIPPED
              + " skipped entries and counts the rest, was given "
              + skipped.size());
    }
  }

  /** An archive as the store committed it, before the session says where it came from. */
  public ArchiveRef(
      long generation,
      String uri,
      long sizeBytes,
      String sha256,
      Instant createdAt,
      List<String> contents) {
    this(generation, uri, sizeBytes, sha256, createdAt, contents, Optional.empty(), List.of());
  }

  /** This archive, recorded as taken from runtime {@code name}. */
  public ArchiveRef takenFrom(String name) {
    return new ArchiveRef(
        generation, uri, sizeBytes, sha256, createdAt, contents, Optional.of(name), skipped);
  }

  /** This archive, with what the agent left out of it. */
  public ArchiveRef withSkipped(List<Skipped> entries) {
    return new ArchiveRef(generation, uri, sizeBytes, sha256, createdAt, contents, source, entries);
  }

  /**
   * An entry of the state the archive does not hold.
   *
   * @param path relative to the runtime's state, e.g. {@code home/.gnupg/S.gpg-agent}
   * @param reason why, e.g. {@code socket}, {@code fifo}, {@code device}; for {@link #MORE} how
   *     many more were skipped
   */
  public record Skipped(String path, String reason) {

    /** The path of the entry that stands for skipped entries past {@link #MAX_SKIPPED}. */
    public static final String MORE = "…";

    public Skipped {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(reason, "reason");
    }
  }
}
