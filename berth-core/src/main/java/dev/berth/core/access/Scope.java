package dev.berth.core.access;

import dev.berth.core.session.Session;
import dev.berth.core.session.TenantId;
import dev.berth.core.tenant.Principal;
import java.util.Optional;

/**
 * Who a request acts for, and so whose sessions it may see: every tenant's (the administrator) or
 * its own tenant's. A session outside the scope is treated exactly as a missing one, so its
 * existence never leaks.
 */
public record Scope(Principal principal) {

  public static Scope admin() {
    return new Scope(Principal.ADMIN);
  }

  public static Scope of(TenantId tenant) {
    return new Scope(Principal.tenant(tenant));
  }

  /** The tenant the scope is limited to; empty for the administrator. */
  public Optional<TenantId> tenant() {
    return switch (principal) {
      case Principal.Admin a -> Optional.empty();
      case Principal.TenantPrincipal(TenantId own) -> Optional.of(own);
    };
  }

  public boolean sees(Session session) {
    return tenant().map(t -> t.equals(session.tenant())).orElse(true);
  }
}
