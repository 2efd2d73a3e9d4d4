package dev.berth.core.session;

import dev.berth.core.error.InvalidValueException;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The model an agent session asks its provider for, fixed at create: a concrete name, or {@link
 * #PLATFORM_DEFAULT}, which means whatever the installation configured (the CLI gets no {@code
 * --model}).
 */
public record AgentModel(String value) {

  /** The model name that means "whatever the platform configured". */
  public static final String PLATFORM_DEFAULT_NAME = "platform-default";

  /** The original platform's rule: up to 128 characters, one leading {@code ~} allowed. */
  public static final Pattern PATTERN =
      Pattern.compile("^(~[A-Za-z0-9][A-Za-z0-9._:/-]{0,126}|[A-Za-z0-9][A-Za-z0-9._:/-]{0,127})$");

  // After PATTERN: the constructor checks against it.
  public static final AgentModel PLATFORM_DEFAULT = new AgentModel(PLATFORM_DEFAULT_NAME);

  public AgentModel {
    Objects.requireNonNull(value, "model");
    if (!PATTERN.matcher(value).matches()) {
      throw new InvalidValueException(
          "invalid input: model must match "
              + PATTERN.pattern()
              + " (at most 128 characters, no spaces), was \""
              + value
              + "\"; use \""
              + PLATFORM_DEFAULT_NAME
              + "\" for the platform's default");
    }
  }

  /** The model to name to the CLI: none for the platform default. */
  public Optional<String> concrete() {
    return value.equals(PLATFORM_DEFAULT_NAME) ? Optional.empty() : Optional.of(value);
  }

  @Override
  public String toString() {
    return value;
  }
}
