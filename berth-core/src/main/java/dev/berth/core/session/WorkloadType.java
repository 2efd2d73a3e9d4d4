package dev.berth.core.session;

import dev.berth.core.error.InvalidValueException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a session runs, such as {@code shell} or {@code claude-code}. The catalogue of types is
 * configuration, so this is a validated name rather than an enum.
 */
public record WorkloadType(String value) {
  private static final Pattern PATTERN = Pattern.compile("[a-z][a-z0-9-]{0,31}");

  public static final WorkloadType SHELL = new WorkloadType("shell");

  public WorkloadType {
    Objects.requireNonNull(value, "workload type is required");
    if (!PATTERN.matcher(value).matches()) {
      throw new InvalidValueException(
          "workload type must be a lowercase name of at most 32 characters, was \"" + value + "\"");
    }
  }

  @Override
  public String toString() {
    return value;
  }
}
