package dev.berth.core.tenant;

import dev.berth.core.session.TenantId;
import java.util.Objects;

/**
 * Who a request acts for, once its token was checked: the installation's administrator, who sees
 * and manages every tenant, or one tenant, which sees only its own sessions.
 */
public sealed interface Principal {

  /** The administrator. */
  Admin ADMIN = new Admin();

  /** Acting for {@code tenant}. */
  static Principal tenant(TenantId tenant) {
    return new TenantPrincipal(tenant);
  }

  /** The administrator: sees every session, may act for any tenant and manages tenants. */
  record Admin() implements Principal {
    @Override
    public String toString() {
      return "admin";
    }
  }

  /** A tenant: sees and creates only its own sessions, within its grants and quota. */
  record TenantPrincipal(TenantId tenant) implements Principal {
    public TenantPrincipal {
      Objects.requireNonNull(tenant, "tenant is required");
    }

    @Override
    public String toString() {
      return "tenant " + tenant;
    }
  }
}
