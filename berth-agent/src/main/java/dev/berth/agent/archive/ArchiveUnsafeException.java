package dev.berth.agent.archive;

import org.jspecify.annotations.Nullable;

/**
 * The archive tries to leave the target, smuggle in a link, device or privileged mode, or exhaust
 * memory or disk ({@code ARCHIVE_UNSAFE}; the operation answers 422).
 */
public final class ArchiveUnsafeException extends ArchiveException {
  private static final long serialVersionUID = 1L;

  ArchiveUnsafeException(
      Violation violation,
      long entryIndex,
      @Nullable String entryName,
      String detail,
      @Nullable Throwable cause) {
    super(violation, entryIndex, entryName, detail, cause);
  }
}
