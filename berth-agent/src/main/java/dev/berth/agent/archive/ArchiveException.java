package dev.berth.agent.archive;

import dev.berth.protocol.problem.AgentReason;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A restore refused an archive. The target was left as it was and the staging directory removed.
 * Not a {@code BerthException} (that family is closed in core): the agent maps {@link #reason()} to
 * its HTTP answer and the failure reason of the operation. The message says which rule was broken
 * and, when one entry broke it, that entry's index (0-based, in archive order) and name.
 */
public abstract sealed class ArchiveException extends RuntimeException
    permits ArchiveUnsafeException, ArchiveCorruptException {
  private static final long serialVersionUID = 1L;

  private final Violation violation;
  private final long entryIndex;
  private final @Nullable String entryName;

  ArchiveException(
      Violation violation,
      long entryIndex,
      @Nullable String entryName,
      String detail,
      @Nullable Throwable cause) {
    super(message(violation, entryIndex, entryName, detail), cause);
    this.violation = Objects.requireNonNull(violation);
    this.entryIndex = entryIndex;
    this.entryName = entryName;
  }

  /**
   * An exception of the kind {@code violation} belongs to, about entry {@code index} or none (-1).
   */
  static ArchiveException of(
      Violation violation,
      long index,
      @Nullable String name,
      String detail,
      @Nullable Throwable cause) {
    return switch (violation.kind()) {
      case UNSAFE -> new ArchiveUnsafeException(violation, index, name, detail, cause);
      case CORRUPT -> new ArchiveCorruptException(violation, index, name, detail, cause);
    };
  }

  static ArchiveException of(Violation violation, String detail) {
    return of(violation, -1, null, detail, null);
  }

  /** {@code ARCHIVE_UNSAFE} or {@code ARCHIVE_CORRUPT}. */
  public AgentReason reason() {
    return violation.reason();
  }

  public Violation violation() {
    return violation;
  }

  /** The offending entry's 0-based position in the archive, when one entry is to blame. */
  public OptionalLong entryIndex() {
    return entryIndex < 0 ? OptionalLong.empty() : OptionalLong.of(entryIndex);
  }

  /** The offending entry's name as the archive spells it, when one entry is to blame. */
  public Optional<String> entryName() {
    return Optional.ofNullable(entryName);
  }

  private static String message(
      Violation violation, long index, @Nullable String name, String detail) {
    String where = index < 0 ? "archive" : "archive entry #" + index;
    if (name != null) {
      where += " \"" + printable(name) + "\"";
    }
    return where + ": " + detail + " (" + violation.reason() + ", " + violation + ")";
  }

  private static String printable(String name) {
    StringBuilder out = new StringBuilder();
    name.codePoints()
        .limit(300)
        .forEach(
            c ->
                out.append(
                    c < 0x20 || c == 0x7f ? String.format("\\x%02x", c) : Character.toString(c)));
    return out.toString();
  }
}
