package dev.berth.agent.archive;

/**
 * The archive is not a well-formed, self-consistent archive of the expected session: broken zstd or
 * tar framing, a missing, duplicated or wrong manifest, or content that differs from it ({@code
 * ARCHIVE_CORRUPT}).
 */
public final class ArchiveCorruptException extends ArchiveException {
  private static final long serialVersionUID = 1L;

  ArchiveCorruptException(
      Violation violation, long entryIndex, String entryName, String detail, Throwable cause) {
    super(violation, entryIndex, entryName, detail, cause);
  }
}
