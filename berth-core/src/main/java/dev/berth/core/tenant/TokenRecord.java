package dev.berth.core.tenant;

import dev.berth.core.session.TenantId;
import java.time.Instant;
import java.util.Objects;

/**
 * A tenant's API token as stored: only its digest, never the token itself.
 *
 * @param digest the SHA-256 digest of the token
 * @param tenant the tenant the token acts for
 * @param createdAt when the token was issued
 */
public record TokenRecord(TokenDigest digest, TenantId tenant, Instant createdAt) {
  public TokenRecord {
    Objects.requireNonNull(digest, "digest is required");
    Objects.requireNonNull(tenant, "tenant is required");
    Objects.requireNonNull(createdAt, "createdAt is required");
  }
}
