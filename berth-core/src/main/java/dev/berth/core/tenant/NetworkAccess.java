package dev.berth.core.tenant;

import dev.berth.core.error.InvalidValueException;
import java.util.Locale;

/**
 * The most network a tenant's sessions may have. It narrows what the server gives: a tenant with
 * {@link #EGRESS} gets what the server's sessions get (egress, or none on a server without it); a
 * tenant with {@link #NONE} gets loopback only, whatever the server offers.
 */
public enum NetworkAccess {
  /** Loopback only. */
  NONE,
  /** Outbound connections, where the server gives them. */
  EGRESS;

  /** The wire name: {@code none} or {@code egress}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a wire name.
   *
   * @throws InvalidValueException naming the value and the two allowed ones
   */
  public static NetworkAccess parse(String value) {
    for (NetworkAccess access : values()) {
      if (access.wireName().equals(value)) {
        return access;
      }
    }
    throw new InvalidValueException(
        "network must be \"none\" or \"egress\", was \"" + value + "\"");
  }
}
