package dev.berth.core.session;

import dev.berth.core.error.InvalidValueException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A plugin of the platform's marketplace, by the name of its directory there: lower-case letters,
 * digits, {@code -}, {@code _} and {@code .}, starting with a letter or digit, at most 64
 * characters (so that it is a safe single path segment on every node).
 */
public record PluginName(String value) {

  public static final Pattern PATTERN = Pattern.compile("^[a-z0-9][a-z0-9._-]{0,63}$");

  /** The most plugins one session takes. */
  public static final int MAX_PER_SESSION = 32;

  public PluginName {
    Objects.requireNonNull(value, "plugin");
    if (!PATTERN.matcher(value).matches() || value.contains("..")) {
      throw new InvalidValueException(
          "invalid input: plugin name must match "
              + PATTERN.pattern()
              + " (lower case, at most 64 characters, no \"..\"), was \""
              + value
              + "\"");
    }
  }

  @Override
  public String toString() {
    return value;
  }
}
