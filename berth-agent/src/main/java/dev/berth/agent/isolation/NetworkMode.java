package dev.berth.agent.isolation;

import dev.berth.core.error.InvalidValueException;
import java.util.List;
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
  EGRESS,
  /**
   * An agent session's: loopback only, where {@code 127.0.0.1:8091} is its credential proxy and
   * nothing else is reachable. Never asked for by a tenant; the host gives it to agent workloads.
   */
  PROXY;

  /** Where, on its own loopback, an agent session reaches its credential proxy. */
  public static final int PROXY_PORT = 8091;

  /** The wire name: {@code none}, {@code egress} or {@code proxy}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a wire name an operator or a request may give: {@code none} or {@code egress} ({@code
   * proxy} is the host's to give, to agent sessions).
   */
  public static NetworkMode parse(String value) {
    for (NetworkMode mode : List.of(NONE, EGRESS)) {
      if (mode.wireName().equals(value)) {
        return mode;
      }
    }
    throw new InvalidValueException("network mode must be none or egress, was \"" + value + "\"");
  }
}
