package dev.berth.core.session;

import dev.berth.core.error.InvalidValueException;
import java.util.Set;
import java.util.TreeSet;

/**
 * The permission modes an agent session's prompt may ask Claude Code for (that turn only). {@code
 * bypassPermissions} is never one: the CLI's tool rules are part of what keeps a prompt from doing
 * what its session was not given.
 */
public final class PermissionMode {

  public static final String DEFAULT = "default";

  public static final Set<String> ALLOWED =
      Set.of(DEFAULT, "acceptEdits", "plan", "dontAsk", "auto");

  private PermissionMode() {}

  /**
   * @throws InvalidValueException naming the modes allowed, and why bypassing is not one
   */
  public static String check(String mode) {
    if (!ALLOWED.contains(mode)) {
      throw new InvalidValueException(
          "invalid input: permissionMode must be one of "
              + new TreeSet<>(ALLOWED)
              + ", was \""
              + mode
              + "\""
              + (mode.equals("bypassPermissions")
                  ? "; bypassing the CLI's permission rules is never allowed"
                  : ""));
    }
    return mode;
  }
}
