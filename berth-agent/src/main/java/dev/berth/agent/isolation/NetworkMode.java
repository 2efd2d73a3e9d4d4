package dev.berth.agent.isolation;

import dev.berth.core.error.InvalidValueException;
import java.util.Locale;

/**
 * What a session's own network namespace reaches. Every sandboxed session has one; the mode says
 * what is behind it.
 */
public enum NetworkMode {
  /** Loopback only: the session's own {@code 127.0.0.1}, nothing else. */
  NONE,
  /**
   * Outbound connections through user-mode networking (slirp4netns), with the host's loopback,
   * every address of the host and the link-local range (cloud metadata) unreachable.
   */
  EGRESS;

  /** The wire name: {@code none} or {@code egress}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a wire name. */
  public static NetworkMode parse(String value) {
    for (NetworkMode mode : values()) {
      if (mode.wireName().equals(value)) {
        return mode;
      }
    }
    throw new InvalidValueException("network mode must be none or egress, was \"" + value + "\"");
  }
}
