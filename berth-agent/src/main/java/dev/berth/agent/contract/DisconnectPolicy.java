package dev.berth.agent.contract;

import dev.berth.core.error.InvalidValueException;
import java.util.Locale;

/** What the host does with the workload when its control lease expires. */
public enum DisconnectPolicy {
  /** Keep the workload running for the disconnect grace, then stop it. */
  CONTINUE,
  /** Stop the workload as soon as the lease expires. */
  STOP;

  /**
   * Parses {@code "continue"} or {@code "stop"} (case-insensitive).
   *
   * @throws InvalidValueException for anything else
   */
  public static DisconnectPolicy parse(String value) {
    if (value != null) {
      for (var policy : values()) {
        if (policy.label().equalsIgnoreCase(value.strip())) {
          return policy;
        }
      }
    }
    throw new InvalidValueException(
        "disconnect policy must be \"continue\" or \"stop\", was "
            + (value == null ? "absent" : "\"" + value + "\""));
  }

  /** The lower-case name used in configuration and on the wire. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
