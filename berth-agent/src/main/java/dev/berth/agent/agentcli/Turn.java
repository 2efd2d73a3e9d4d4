package dev.berth.agent.agentcli;

import dev.berth.core.error.InvalidValueException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One prompt as a run of the CLI: its text, the model it asks for (none: the platform's default)
 * and, for Claude Code, the permission mode of this turn.
 */
public record Turn(String prompt, Optional<String> model, String permissionMode) {

  /** A prompt is at most 1 MiB of UTF-8; a larger one is refused before it is queued. */
  public static final int MAX_PROMPT_BYTES = dev.berth.protocol.wire.WireLimits.MAX_PROMPT_BYTES;

  /** The model name that means "whatever the platform configured": no {@code --model} flag. */
  public static final String PLATFORM_DEFAULT = "platform-default";

  /** The original platform's model rule: up to 128 characters, one leading {@code ~} allowed. */
  public static final Pattern MODEL =
      Pattern.compile("^(~[A-Za-z0-9][A-Za-z0-9._:/-]{0,126}|[A-Za-z0-9][A-Za-z0-9._:/-]{0,127})$");

  /** The permission modes a turn may ask Claude Code for (never {@code bypassPermissions}). */
  public static final Set<String> PERMISSION_MODES = dev.berth.core.session.PermissionMode.ALLOWED;

  public Turn {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(permissionMode, "permissionMode");
    if (prompt.isBlank()) {
      throw new InvalidValueException("invalid input: the prompt is empty; write what to ask");
    }
    int bytes = prompt.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_PROMPT_BYTES) {
      throw new PromptTooLargeException(bytes);
    }
    model.ifPresent(Turn::checkModel);
    dev.berth.core.session.PermissionMode.check(permissionMode);
  }

  /** A prompt with the platform's model and the default permission mode. */
  public static Turn of(String prompt) {
    return new Turn(prompt, Optional.empty(), "default");
  }

  /** The model to pass as {@code --model}: none for the platform default. */
  public Optional<String> concreteModel() {
    return model.filter(m -> !m.equals(PLATFORM_DEFAULT));
  }

  /** Checks a model name against {@link #MODEL}. */
  public static void checkModel(String model) {
    if (!MODEL.matcher(model).matches()) {
      throw new InvalidValueException(
          "invalid input: model must match "
              + MODEL.pattern()
              + " (at most 128 characters, no spaces), was \""
              + model
              + "\"; use \""
              + PLATFORM_DEFAULT
              + "\" for the platform's default");
    }
  }

  /** A prompt over {@link #MAX_PROMPT_BYTES}: the agent's API answers 413. */
  public static final class PromptTooLargeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    PromptTooLargeException(int bytes) {
      super(
          "prompt exceeds 1 MiB: it is "
              + bytes
              + " bytes of UTF-8, at most "
              + MAX_PROMPT_BYTES
              + " are taken; split it or attach the material as a file in the workspace");
    }
  }
}
