package dev.berth.server.auth;

import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.NetworkAccess;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.tenant.TenantDirectory;
import dev.berth.core.tenant.TokenDigest;
import dev.berth.core.tenant.TokenRecord;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Issues and revokes tenant tokens ({@code POST /api/v1/admin/tokens}). Issuing for an existing
 * tenant replaces its grants and quota (keeping the service accounts it lists) and adds a token:
 * the tenant's earlier tokens keep working until revoked, so a token can be rotated without a gap.
 * The tenant write and the token write are two steps; when the second fails the tenant stands
 * updated without a new token, and issuing again is safe. Thread-safe when {@code random} is.
 */
public final class TenantTokens {

  private final TenantDirectory directory;
  private final InstantSource clock;
  private final RandomGenerator random;

  /**
   * @param random the source of token bits; a {@link java.security.SecureRandom} in production
   */
  public TenantTokens(TenantDirectory directory, InstantSource clock, RandomGenerator random) {
    this.directory = Objects.requireNonNull(directory, "directory");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * Creates or updates {@code tenant} with these grants and stores the digest of a fresh token.
   *
   * @return the stored tenant and the token in clear, which is not kept anywhere
   * @throws dev.berth.core.error.InvalidValueException when the tenant is {@code admin}, no
   *     workload type is given, or {@code maxSessions} is outside 1 to 10000
   */
  public IssuedToken issue(TenantId tenant, Set<WorkloadType> workloadTypes, int maxSessions) {
    return issue(tenant, workloadTypes, maxSessions, NetworkAccess.EGRESS);
  }

  /**
   * Like {@link #issue(TenantId, Set, int)} with the tenant's network narrowed to {@code network}.
   */
  public IssuedToken issue(
      TenantId tenant, Set<WorkloadType> workloadTypes, int maxSessions, NetworkAccess network) {
    Instant now = clock.instant();
    Tenant stored =
        directory.upsertGrants(new Tenant(tenant, workloadTypes, maxSessions, now, network));
    String token = Tokens.generate(random);
    directory.addToken(new TokenRecord(TokenDigest.of(token), tenant, now));
    return new IssuedToken(stored, token);
  }

  /**
   * Revokes a tenant token given in clear; it no longer authenticates.
   *
   * @return whether it was a tenant token
   */
  public boolean revoke(String token) {
    return directory.revokeToken(TokenDigest.of(token));
  }
}
