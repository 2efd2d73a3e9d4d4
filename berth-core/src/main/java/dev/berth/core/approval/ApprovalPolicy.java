package dev.berth.core.approval;

import dev.berth.core.error.InvalidValueException;
import java.util.Locale;

/**
 * Which of an agent session's tool calls wait for a human decision before they run.
 *
 * <ul>
 *   <li>{@code off}: none;
 *   <li>{@code external}: the calls that reach outside the session (fetching the web, searching it,
 *       an MCP server's tools);
 *   <li>{@code all}: every tool call.
 * </ul>
 */
public enum ApprovalPolicy {
  OFF,
  EXTERNAL,
  ALL;

  /**
   * The policy's name on the wire and in configuration: {@code off}, {@code external}, {@code all}.
   */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * @throws InvalidValueException naming the policies there are
   */
  public static ApprovalPolicy parse(String value) {
    for (ApprovalPolicy policy : values()) {
      if (policy.wireName().equals(value)) {
        return policy;
      }
    }
    throw new InvalidValueException(
        "invalid input: an approval policy must be off, external or all, was \"" + value + "\"");
  }

  /**
   * The stricter of this and {@code other}: a grant can tighten a type's policy, never loosen it.
   */
  public ApprovalPolicy atLeast(ApprovalPolicy other) {
    return compareTo(other) >= 0 ? this : other;
  }
}
