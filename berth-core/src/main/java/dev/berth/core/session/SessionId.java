package dev.berth.core.session;

import dev.berth.core.error.InvalidValueException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/** A session's identity: 32 lowercase hex characters (128 random bits), as in the contract. */
public record SessionId(String value) implements Comparable<SessionId> {
  private static final Pattern PATTERN = Pattern.compile("[0-9a-f]{32}");

  public SessionId {
    Objects.requireNonNull(value, "session id is required");
    if (!PATTERN.matcher(value).matches()) {
      throw new InvalidValueException(
          "session id must be 32 lowercase hex characters, was \"" + value + "\"");
    }
  }

  /** A fresh id from {@code random}; pass a {@link java.security.SecureRandom} in production. */
  public static SessionId generate(RandomGenerator random) {
    byte[] bytes = new byte[16];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) random.nextInt(256);
    }
    return new SessionId(HexFormat.of().formatHex(bytes));
  }

  @Override
  public int compareTo(SessionId other) {
    return value.compareTo(other.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
