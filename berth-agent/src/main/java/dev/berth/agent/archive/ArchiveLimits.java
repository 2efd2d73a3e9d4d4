package dev.berth.agent.archive;

/**
 * What a restore accepts before it calls an archive a bomb or unsafe ({@code ARCHIVE_UNSAFE}):
 * total file bytes, number of entries (the manifest not counted), bytes of one file, bytes and
 * depth of a path, and the compression ratio (decoded tar bytes per compressed byte, checked once
 * more than {@code ratioGraceBytes} were decoded). The manifest itself may be at most {@code
 * maxManifestBytes}.
 *
 * <p>The ratio check also refuses an honest archive of very compressible data (a large file of
 * zeros compresses far beyond 200:1); a caller that restores such archives raises {@code maxRatio}.
 * The writer uses {@link #defaults()} for its path rules, so it never writes a path that a default
 * restore refuses.
 */
public record ArchiveLimits(
    long maxTotalBytes,
    long maxEntries,
    long maxEntryBytes,
    int maxPathBytes,
    int maxDepth,
    long maxRatio,
    long ratioGraceBytes,
    long maxManifestBytes) {

  private static final long GIB = 1L << 30;
  private static final long MIB = 1L << 20;

  public ArchiveLimits {
    positive("maxTotalBytes", maxTotalBytes);
    positive("maxEntries", maxEntries);
    positive("maxEntryBytes", maxEntryBytes);
    positive("maxPathBytes", maxPathBytes);
    positive("maxDepth", maxDepth);
    positive("maxRatio", maxRatio);
    positive("ratioGraceBytes", ratioGraceBytes);
    positive("maxManifestBytes", maxManifestBytes);
    if (maxManifestBytes > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "maxManifestBytes must fit in one array, was " + maxManifestBytes);
    }
  }

  /**
   * 8 GiB in total, 200,000 entries, 4 GiB per file, paths of 1024 bytes and 64 segments, 200:1
   * after the first MiB, a manifest of 64 MiB.
   */
  public static ArchiveLimits defaults() {
    return new ArchiveLimits(8 * GIB, 200_000, 4 * GIB, 1024, 64, 200, MIB, 64 * MIB);
  }

  public ArchiveLimits withMaxTotalBytes(long value) {
    return new ArchiveLimits(
        value,
        maxEntries,
        maxEntryBytes,
        maxPathBytes,
        maxDepth,
        maxRatio,
        ratioGraceBytes,
        maxManifestBytes);
  }

  public ArchiveLimits withMaxEntries(long value) {
    return new ArchiveLimits(
        maxTotalBytes,
        value,
        maxEntryBytes,
        maxPathBytes,
        maxDepth,
        maxRatio,
        ratioGraceBytes,
        maxManifestBytes);
  }

  public ArchiveLimits withMaxEntryBytes(long value) {
    return new ArchiveLimits(
        maxTotalBytes,
        maxEntries,
        value,
        maxPathBytes,
        maxDepth,
        maxRatio,
        ratioGraceBytes,
        maxManifestBytes);
  }

  public ArchiveLimits withMaxRatio(long value) {
    return new ArchiveLimits(
        maxTotalBytes,
        maxEntries,
        maxEntryBytes,
        maxPathBytes,
        maxDepth,
        value,
        ratioGraceBytes,
        maxManifestBytes);
  }

  public ArchiveLimits withRatioGraceBytes(long value) {
    return new ArchiveLimits(
        maxTotalBytes,
        maxEntries,
        maxEntryBytes,
        maxPathBytes,
        maxDepth,
        maxRatio,
        value,
        maxManifestBytes);
  }

  private static void positive(String name, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
