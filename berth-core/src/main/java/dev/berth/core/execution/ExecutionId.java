package dev.berth.core.execution;

import dev.berth.core.error.InvalidValueException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/** An execution's identity: {@code x-} followed by 24 lowercase hex characters. */
public record ExecutionId(String value) {
  private static final Pattern PATTERN = Pattern.compile("x-[0-9a-f]{24}");

  public ExecutionId {
    Objects.requireNonNull(value, "execution id is required");
    if (!PATTERN.matcher(value).matches()) {
      throw new InvalidValueException(
          "execution id must be x- and 24 lowercase hex characters, was \"" + value + "\"");
    }
  }

  public static ExecutionId generate(RandomGenerator random) {
    byte[] bytes = new byte[12];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) random.nextInt(256);
    }
    return new ExecutionId("x-" + HexFormat.of().formatHex(bytes));
  }

  @Override
  public String toString() {
    return value;
  }
}
