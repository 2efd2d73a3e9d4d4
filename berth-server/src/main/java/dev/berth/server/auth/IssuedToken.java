package dev.berth.server.auth;

import dev.berth.core.tenant.Tenant;
import java.util.Objects;

/**
 * A freshly issued tenant token, in clear: the only time it exists outside the tenant's hands. Show
 * it once and drop it; only its digest is stored. {@link #toString()} leaves the token out, so that
 * logging this record does not leak it.
 *
 * @param tenant the tenant as stored, with its grants
 * @param token the token, 256 random bits as 64 lowercase hex characters
 */
public record IssuedToken(Tenant tenant, String token) {
  public IssuedToken {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(token, "token");
  }

  @Override
  public String toString() {
    return "IssuedToken[tenant=" + tenant + ", token=(hidden)]";
  }
}
