package dev.berth.core.tenant;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.TenantId;
import java.util.List;
import java.util.Optional;

/**
 * The tenants of an installation, their grants, and the digests of their API tokens. A tenant may
 * hold several tokens at once (so that one can be rotated without downtime); every token acts for
 * exactly one tenant. The administrator's token is not kept here. All methods are thread-safe and
 * atomic; a failed write changes nothing.
 *
 * <p>Every adapter runs the same contract test suite ({@code TenantDirectoryContract} in
 * berth-core's test jar).
 */
public interface TenantDirectory {

  /**
   * Creates the tenant, or replaces the grants (workload types, quota, network, service accounts)
   * of the existing one while keeping its {@link Tenant#createdAt()}.
   *
   * @return the tenant as stored
   * @throws AlreadyExistsException when another tenant lists one of its service accounts; nothing
   *     is written
   */
  Tenant upsertTenant(Tenant tenant);

  /**
   * Creates the tenant, or replaces the workload types, quota and network of the existing one,
   * keeping its {@link Tenant#createdAt()}, the service accounts it lists, its approval policy and
   * its disconnect policy (the tenant's own {@link Tenant#serviceAccounts()}, {@link
   * Tenant#approval()} and {@link Tenant#disconnect()} are ignored): what issuing a token does, in
   * one write, so that it cannot undo a concurrent change of the list.
   *
   * @return the tenant as stored
   */
  Tenant upsertGrants(Tenant tenant);

  /** The tenant that lists {@code account}, or empty when none does. */
  Optional<Tenant> tenantListing(ServiceAccount account);

  /**
   * The refusal of an upsert of {@code tenant} listing {@code account}, which {@code owner} lists.
   */
  static AlreadyExistsException listedElsewhere(
      ServiceAccount account, TenantId owner, TenantId tenant) {
    return new AlreadyExistsException(
        "service account " + account + " of tenant " + owner,
        "a service account acts for one tenant; remove it from tenant "
            + owner
            + " before listing it for tenant "
            + tenant);
  }

  /** The tenant, or empty when there is none. */
  Optional<Tenant> tenant(TenantId id);

  /** Every tenant, ordered by id. */
  List<Tenant> tenants();

  /**
   * Stores a token's digest for its tenant.
   *
   * @throws NotFoundException when the tenant does not exist
   * @throws AlreadyExistsException when the digest is already stored
   */
  void addToken(TokenRecord token);

  /** Every token (its digest, never the token), oldest first, then by digest. */
  List<TokenRecord> tokens();

  /** The token with this digest, or empty when there is none (never issued, or revoked). */
  Optional<TokenRecord> findToken(TokenDigest digest);

  /**
   * Forgets the token with this digest, so that it no longer authenticates.
   *
   * @return whether there was such a token
   */
  boolean revokeToken(TokenDigest digest);
}
