package dev.berth.agent.archive;

import org.jspecify.annotations.Nullable;

/**
 * The archive is not a well-formed, self-consistent archive of the expected session: broken zstd or
 * tar framing, a missing, duplicated or wrong manifest, or content that differs from it ({@code
 * ARCHIVE_CORRUPT}).
 */
public final class ArchiveCorruptException extends ArchiveException {
  private static final long serialVersionUID = 1L;

  ArchiveCorruptException(
      Violation violation,
      long entryIndex,
      @Nullable String entryName,
      String detail,
      @Nullable Throwable cause) {
    super(violation, entryIndex, entryName, detail, cause);
  }
}
