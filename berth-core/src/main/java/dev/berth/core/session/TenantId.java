package dev.berth.core.session;

import dev.berth.core.error.InvalidValueException;
import java.util.Objects;
import java.util.regex.Pattern;

/** The tenant that owns a session: a DNS-label-like name such as {@code acme}. */
public record TenantId(String value) {
  private static final Pattern PATTERN = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

  /** The tenant of the installation's administrator, who may see every tenant. */
  public static final TenantId ADMIN = new TenantId("admin");

  public TenantId {
    Objects.requireNonNull(value, "tenant is required");
    if (!PATTERN.matcher(value).matches()) {
      throw new InvalidValueException(
          "tenant must be 1-63 lowercase letters, digits or inner '-', was \"" + value + "\"");
    }
  }

  @Override
  public String toString() {
    return value;
  }
}
