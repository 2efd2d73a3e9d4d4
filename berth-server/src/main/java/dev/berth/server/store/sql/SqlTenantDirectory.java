package dev.berth.server.store.sql;

import static dev.berth.server.store.sql.EpochNanos.instant;
import static dev.berth.server.store.sql.EpochNanos.nanos;
import static dev.berth.server.store.sql.SqlDatabase.queryList;
import static dev.berth.server.store.sql.SqlDatabase.queryOne;
import static dev.berth.server.store.sql.SqlDatabase.update;

import dev.berth.core.approval.ApprovalPolicy;
import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.tenant.DisconnectGrant;
import dev.berth.core.tenant.NetworkAccess;
import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.tenant.TenantDirectory;
import dev.berth.core.tenant.TokenDigest;
import dev.berth.core.tenant.TokenRecord;
import dev.berth.store.CorruptRecordException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The embedded {@link TenantDirectory}: tables {@code tenants}, {@code tenant_service_accounts} and
 * {@code api_tokens} in the SQLite file of a {@link SqlSessionStore}, sharing its connection pool
 * and its write lock (see there for the transaction model). The store owns the database: closing
 * the store closes this directory too, and this class has nothing to close.
 *
 * <p>An upsert is one {@code INSERT ... ON CONFLICT DO UPDATE} that leaves {@code created_at}
 * alone, read back in the same transaction. A token names its tenant through a foreign key, so a
 * token for a missing tenant cannot be stored. A row that the domain rejects raises {@link
 * CorruptRecordException} naming the row.
 */
public final class SqlTenantDirectory implements TenantDirectory {

  private static final String TENANT_COLUMNS =
      "id, workload_types, max_sessions, created_at, network, approval, disconnect_policy,"
          + " disconnect_grace_seconds";

  private final SqlDatabase db;

  private SqlTenantDirectory(SqlDatabase db) {
    this.db = db;
  }

  /** The directory in the database file of {@code store}. */
  public static SqlTenantDirectory sharing(SqlSessionStore store) {
    Objects.requireNonNull(store, "store");
    return new SqlTenantDirectory(store.database());
  }

  @Override
  public Tenant upsertTenant(Tenant tenant) {
    return db.write(
        "write tenant " + tenant.id(),
        c -> {
          writeGrants(c, tenant, true);
          replaceServiceAccounts(c, tenant);
          return readTenant(c, tenant.id()).orElseThrow();
        });
  }

  @Override
  public Tenant upsertGrants(Tenant tenant) {
    return db.write(
        "write the grants of tenant " + tenant.id(),
        c -> {
          writeGrants(c, tenant, false);
          return readTenant(c, tenant.id()).orElseThrow();
        });
  }

  /**
   * @param approval whether an existing tenant's approval and disconnect policies are replaced too:
   *     a whole grant (PUT) replaces them, a token's grants (workload types, quota, network) leave
   *     them as they were
   */
  private static void writeGrants(Connection c, Tenant tenant, boolean approval)
      throws SQLException {
    update(
        c,
        "INSERT INTO tenants ("
            + TENANT_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (id) DO UPDATE SET workload_types = excluded.workload_types,"
            + " max_sessions = excluded.max_sessions, network = excluded.network"
            + (approval
                ? ", approval = excluded.approval, disconnect_policy = excluded.disconnect_policy,"
                    + " disconnect_grace_seconds = excluded.disconnect_grace_seconds"
                : ""),
        tenant.id().value(),
        String.join(" ", tenant.workloadTypeNames()),
        tenant.maxSessions(),
        nanos(tenant.createdAt()),
        tenant.network().wireName(),
        tenant.approval().wireName(),
        tenant.disconnect().map(d -> d.policy().wireName()).orElse(null),
        tenant.disconnect().map(d -> d.grace().toSeconds()).orElse(null));
  }

  /**
   * The tenant's rows become its list. A service account another tenant holds is refused, whether
   * it was committed before (seen by the SELECT) or commits while this runs (the insert's conflict
   * on the primary key finds it, PostgreSQL waiting for the other transaction first).
   */
  private static void replaceServiceAccounts(Connection c, Tenant tenant) throws SQLException {
    update(c, "DELETE FROM tenant_service_accounts WHERE tenant = ?", tenant.id().value());
    for (ServiceAccount account : tenant.serviceAccounts()) {
      Optional<TenantId> owner = ownerOf(c, account);
      if (owner.isPresent()) {
        throw TenantDirectory.listedElsewhere(account, owner.get(), tenant.id());
      }
      int inserted =
          update(
              c,
              "INSERT INTO tenant_service_accounts (account, tenant) VALUES (?, ?)"
                  + " ON CONFLICT (account) DO NOTHING",
              account.toString(),
              tenant.id().value());
      if (inserted == 0) {
        // Another tenant's write took it after the SELECT above; it has committed by now.
        Optional<TenantId> taker = ownerOf(c, account);
        throw taker.isPresent()
            ? TenantDirectory.listedElsewhere(account, taker.get(), tenant.id())
            : new dev.berth.core.error.AlreadyExistsException(
                "service account " + account + " of another tenant",
                "a service account acts for one tenant; read the tenants and try again");
      }
    }
  }

  private static Optional<TenantId> ownerOf(Connection c, ServiceAccount account)
      throws SQLException {
    return queryOne(
        c,
        "SELECT tenant FROM tenant_service_accounts WHERE account = ?",
        r -> new TenantId(r.getString("tenant")),
        account.toString());
  }

  @Override
  public Optional<Tenant> tenantListing(ServiceAccount account) {
    return db.read(
        "find the tenant of service account " + account,
        c -> {
          Optional<TenantId> owner = ownerOf(c, account);
          return owner.isEmpty() ? Optional.<Tenant>empty() : readTenant(c, owner.get());
        });
  }

  @Override
  public Optional<Tenant> tenant(TenantId id) {
    return db.read("read tenant " + id, c -> readTenant(c, id));
  }

  @Override
  public List<Tenant> tenants() {
    return db.read(
        "list tenants",
        c -> {
          Map<String, Set<ServiceAccount>> accounts = new HashMap<>();
          for (String[] row :
              queryList(
                  c,
                  "SELECT tenant, account FROM tenant_service_accounts",
                  r -> new String[] {r.getString("tenant"), r.getString("account")})) {
            accounts.computeIfAbsent(row[0], k -> new HashSet<>()).add(account(row[0], row[1]));
          }
          return queryList(
              c,
              "SELECT " + TENANT_COLUMNS + " FROM tenants ORDER BY id",
              r -> tenant(r, accounts.getOrDefault(r.getString("id"), Set.of())));
        });
  }

  private static Optional<Tenant> readTenant(Connection c, TenantId id) throws SQLException {
    Set<ServiceAccount> accounts = new HashSet<>();
    for (String account :
        queryList(
            c,
            "SELECT account FROM tenant_service_accounts WHERE tenant = ?",
            r -> r.getString("account"),
            id.value())) {
      accounts.add(account(id.value(), account));
    }
    return queryOne(
        c,
        "SELECT " + TENANT_COLUMNS + " FROM tenants WHERE id = ?",
        r -> tenant(r, accounts),
        id.value());
  }

  private static ServiceAccount account(String tenant, String text) {
    try {
      return ServiceAccount.parse(text);
    } catch (InvalidValueException e) {
      throw new CorruptRecordException(
          "service account " + text + " of tenant " + tenant,
          e.getMessage(),
          SqlSessionStore.REPAIR,
          e);
    }
  }

  @Override
  public void addToken(TokenRecord token) {
    db.write(
        "store a token of tenant " + token.tenant(),
        c -> {
          boolean tenantExists =
              queryOne(c, "SELECT 1 FROM tenants WHERE id = ?", r -> true, token.tenant().value())
                  .isPresent();
          if (!tenantExists) {
            throw new NotFoundException("tenant " + token.tenant());
          }
          int inserted =
              update(
                  c,
                  "INSERT INTO api_tokens (digest, tenant, created_at) VALUES (?, ?, ?)"
                      + " ON CONFLICT (digest) DO NOTHING",
                  token.digest().hex(),
                  token.tenant().value(),
                  nanos(token.createdAt()));
          if (inserted == 0) {
            throw new AlreadyExistsException("token with digest " + token.digest().hex());
          }
          return inserted;
        });
  }

  @Override
  public List<TokenRecord> tokens() {
    return db.read(
        "list the tokens",
        c ->
            queryList(
                c,
                "SELECT digest, tenant, created_at FROM api_tokens ORDER BY created_at, digest",
                SqlTenantDirectory::token));
  }

  @Override
  public Optional<TokenRecord> findToken(TokenDigest digest) {
    return db.read(
        "look up a token",
        c ->
            queryOne(
                c,
                "SELECT digest, tenant, created_at FROM api_tokens WHERE digest = ?",
                SqlTenantDirectory::token,
                digest.hex()));
  }

  @Override
  public boolean revokeToken(TokenDigest digest) {
    return db.write(
        "revoke a token",
        c -> update(c, "DELETE FROM api_tokens WHERE digest = ?", digest.hex()) > 0);
  }

  /** The tenant's disconnect policy; none (the server's default) when its columns are NULL. */
  private static Optional<DisconnectGrant> disconnect(ResultSet rs) throws SQLException {
    String policy = rs.getString("disconnect_policy");
    if (policy == null) {
      return Optional.empty();
    }
    return Optional.of(
        new DisconnectGrant(
            DisconnectGrant.Policy.parse(policy),
            Duration.ofSeconds(rs.getLong("disconnect_grace_seconds"))));
  }

  private static Tenant tenant(ResultSet rs, Set<ServiceAccount> accounts) throws SQLException {
    String id = rs.getString("id");
    try {
      Set<WorkloadType> types =
          Arrays.stream(rs.getString("workload_types").split(" "))
              .map(WorkloadType::new)
              .collect(Collectors.toSet());
      return new Tenant(
          new TenantId(id),
          types,
          rs.getInt("max_sessions"),
          instant(rs.getLong("created_at")),
          NetworkAccess.parse(rs.getString("network")),
          accounts,
          ApprovalPolicy.parse(rs.getString("approval")),
          disconnect(rs));
    } catch (InvalidValueException e) {
      throw new CorruptRecordException("tenant " + id, e.getMessage(), SqlSessionStore.REPAIR, e);
    }
  }

  private static TokenRecord token(ResultSet rs) throws SQLException {
    String digest = rs.getString("digest");
    try {
      return new TokenRecord(
          new TokenDigest(digest),
          new TenantId(rs.getString("tenant")),
          instant(rs.getLong("created_at")));
    } catch (InvalidValueException e) {
      throw new CorruptRecordException(
          "token with digest " + digest, e.getMessage(), SqlSessionStore.REPAIR, e);
    }
  }
}
