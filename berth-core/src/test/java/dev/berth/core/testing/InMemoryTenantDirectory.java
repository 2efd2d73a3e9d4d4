package dev.berth.core.testing;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.TenantId;
import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.tenant.TenantDirectory;
import dev.berth.core.tenant.TokenDigest;
import dev.berth.core.tenant.TokenRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A tenant directory in memory, for tests. One lock guards everything. It runs the same contract
 * suite as every real adapter.
 */
public final class InMemoryTenantDirectory implements TenantDirectory {
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<TenantId, Tenant> tenants =
      new TreeMap<>((a, b) -> a.value().compareTo(b.value()));
  private final Map<TokenDigest, TokenRecord> tokens = new HashMap<>();

  @Override
  public Tenant upsertTenant(Tenant tenant) {
    return locked(
        () -> {
          for (ServiceAccount account : tenant.serviceAccounts()) {
            listing(account)
                .filter(other -> !other.id().equals(tenant.id()))
                .ifPresent(
                    other -> {
                      throw TenantDirectory.listedElsewhere(account, other.id(), tenant.id());
                    });
          }
          Tenant stored =
              Optional.ofNullable(tenants.get(tenant.id()))
                  .map(existing -> existing.updatedBy(tenant))
                  .orElse(tenant);
          tenants.put(stored.id(), stored);
          return stored;
        });
  }

  @Override
  public Tenant upsertGrants(Tenant tenant) {
    return locked(
        () -> {
          Tenant stored =
              Optional.ofNullable(tenants.get(tenant.id()))
                  .map(
                      existing ->
                          existing
                              .updatedBy(tenant)
                              .withServiceAccounts(existing.serviceAccounts())
                              .withApproval(existing.approval())
                              .withDisconnect(existing.disconnect()))
                  .orElse(tenant.withServiceAccounts(java.util.Set.of()));
          tenants.put(stored.id(), stored);
          return stored;
        });
  }

  @Override
  public Optional<Tenant> tenantListing(ServiceAccount account) {
    return locked(() -> listing(account));
  }

  private Optional<Tenant> listing(ServiceAccount account) {
    return tenants.values().stream().filter(t -> t.serviceAccounts().contains(account)).findFirst();
  }

  @Override
  public Optional<Tenant> tenant(TenantId id) {
    return locked(() -> Optional.ofNullable(tenants.get(id)));
  }

  @Override
  public List<Tenant> tenants() {
    return locked(() -> List.copyOf(tenants.values()));
  }

  @Override
  public void addToken(TokenRecord token) {
    locked(
        () -> {
          if (!tenants.containsKey(token.tenant())) {
            throw new NotFoundException("tenant " + token.tenant());
          }
          if (tokens.containsKey(token.digest())) {
            throw new AlreadyExistsException("token with digest " + token.digest().hex());
          }
          return tokens.put(token.digest(), token);
        });
  }

  @Override
  public List<TokenRecord> tokens() {
    return locked(
        () ->
            tokens.values().stream()
                .sorted(
                    java.util.Comparator.comparing(TokenRecord::createdAt)
                        .thenComparing(t -> t.digest().hex()))
                .toList());
  }

  @Override
  public Optional<TokenRecord> findToken(TokenDigest digest) {
    return locked(() -> Optional.ofNullable(tokens.get(digest)));
  }

  @Override
  public boolean revokeToken(TokenDigest digest) {
    return locked(() -> tokens.remove(digest) != null);
  }

  private <T> T locked(Supplier<T> work) {
    lock.lock();
    try {
      return work.get();
    } finally {
      lock.unlock();
    }
  }
}
