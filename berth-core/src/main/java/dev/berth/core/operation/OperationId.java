package dev.berth.core.operation;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.SessionId;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An operation's identity. Lifecycle operations get deterministic ids derived from the session, the
 * operation type and the intent version (or incarnation) they serve, so that a duplicate request
 * finds the operation already recorded instead of starting a second one.
 */
public record OperationId(String value) {
  private static final Pattern PATTERN =
      Pattern.compile("op-[0-9a-f]{32}-[a-z_]{3,20}-[0-9]{1,19}");

  public OperationId {
    Objects.requireNonNull(value, "operation id is required");
    if (!PATTERN.matcher(value).matches()) {
      throw new InvalidValueException(
          "operation id must look like op-<session id>-<type>-<number>, was \"" + value + "\"");
    }
  }

  /** The id of the {@code type} operation that serves {@code session}'s number {@code n}. */
  public static OperationId of(SessionId session, OperationType type, long n) {
    return new OperationId(
        "op-" + session.value() + "-" + type.name().toLowerCase(Locale.ROOT) + "-" + n);
  }

  @Override
  public String toString() {
    return value;
  }
}
