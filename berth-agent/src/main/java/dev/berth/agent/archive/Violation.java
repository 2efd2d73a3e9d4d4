package dev.berth.agent.archive;

import dev.berth.protocol.problem.AgentReason;

/**
 * Which rule an archive broke. Each belongs to one of the two reasons the platform reports: {@code
 * ARCHIVE_UNSAFE} (the archive tries to escape, smuggle a special file or exhaust resources) or
 * {@code ARCHIVE_CORRUPT} (it is not a well-formed, self-consistent archive of the expected
 * session).
 */
public enum Violation {
  ABSOLUTE_PATH(Kind.UNSAFE),
  PARENT_SEGMENT(Kind.UNSAFE),
  BAD_NAME(Kind.UNSAFE),
  PATH_TOO_LONG(Kind.UNSAFE),
  DUPLICATE_PATH(Kind.UNSAFE),
  LINK_ESCAPES(Kind.UNSAFE),
  HARDLINK(Kind.UNSAFE),
  WRITE_THROUGH_LINK(Kind.UNSAFE),
  SPECIAL_FILE(Kind.UNSAFE),
  SPECIAL_MODE(Kind.UNSAFE),
  ENTRY_COUNT_LIMIT(Kind.UNSAFE),
  ENTRY_SIZE_LIMIT(Kind.UNSAFE),
  TOTAL_BYTES_LIMIT(Kind.UNSAFE),
  COMPRESSION_RATIO(Kind.UNSAFE),
  HEADER_TOO_LARGE(Kind.UNSAFE),
  WINDOW_TOO_LARGE(Kind.UNSAFE),
  BAD_FRAMING(Kind.CORRUPT),
  TRAILING_DATA(Kind.CORRUPT),
  MISSING_PARENT(Kind.CORRUPT),
  MISSING_MANIFEST(Kind.CORRUPT),
  ENTRY_AFTER_MANIFEST(Kind.CORRUPT),
  BAD_MANIFEST(Kind.CORRUPT),
  DIGEST_MISMATCH(Kind.CORRUPT),
  NOT_IN_MANIFEST(Kind.CORRUPT),
  MISSING_FROM_ARCHIVE(Kind.CORRUPT),
  ENTRY_MISMATCH(Kind.CORRUPT),
  IDENTITY_MISMATCH(Kind.CORRUPT);

  /** The two reasons, as the protocol names them. */
  public enum Kind {
    UNSAFE(AgentReason.ARCHIVE_UNSAFE),
    CORRUPT(AgentReason.ARCHIVE_CORRUPT);

    private final AgentReason reason;

    Kind(AgentReason reason) {
      this.reason = reason;
    }

    public AgentReason reason() {
      return reason;
    }
  }

  private final Kind kind;

  Violation(Kind kind) {
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }

  /** {@code ARCHIVE_UNSAFE} or {@code ARCHIVE_CORRUPT}. */
  public AgentReason reason() {
    return kind.reason();
  }
}
