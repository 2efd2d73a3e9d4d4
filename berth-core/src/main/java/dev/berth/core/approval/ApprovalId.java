package dev.berth.core.approval;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.SessionId;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An approval's identity, as the session's credential proxy makes it: {@code <session id>:<32
 * lowercase hex>}. The prefix names the session, so the gateway routes know whose key must sign a
 * request before reading anything.
 */
public record ApprovalId(String value) implements Comparable<ApprovalId> {
  private static final Pattern PATTERN = Pattern.compile("[0-9a-f]{32}:[0-9a-f]{32}");

  public ApprovalId {
    Objects.requireNonNull(value, "approval id is required");
    if (!PATTERN.matcher(value).matches()) {
      throw new InvalidValueException(
          "invalid input: an approval id must be <session id>:<32 lowercase hex characters>, was \""
              + (value.length() > 80 ? value.substring(0, 80) + "…" : value)
              + "\"");
    }
  }

  public static ApprovalId of(SessionId session, String requestId) {
    return new ApprovalId(session.value() + ":" + requestId);
  }

  /** The session the approval belongs to: the id's prefix. */
  public SessionId session() {
    return new SessionId(value.substring(0, value.indexOf(':')));
  }

  @Override
  public int compareTo(ApprovalId other) {
    return value.compareTo(other.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
