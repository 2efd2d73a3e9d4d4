package dev.berth.core.store;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.Phase;
import dev.berth.core.session.TenantId;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A page request over sessions, ordered by creation time then id.
 *
 * @param tenant only this tenant's sessions, or every tenant's when empty
 * @param phases only sessions in these phases, or any phase when empty
 * @param limit the page size, 1 to {@value #MAX_LIMIT}
 * @param pageToken the {@link Page#nextPageToken()} of the previous page, or empty for the first
 */
public record SessionQuery(
    Optional<TenantId> tenant, Set<Phase> phases, int limit, Optional<String> pageToken) {

  public static final int MAX_LIMIT = 1000;

  public SessionQuery {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(pageToken, "pageToken");
    phases = Set.copyOf(phases);
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidValueException(
          "page limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
    }
  }

  public static SessionQuery all(int limit) {
    return new SessionQuery(Optional.empty(), Set.of(), limit, Optional.empty());
  }

  public SessionQuery forTenant(TenantId t) {
    return new SessionQuery(Optional.of(t), phases, limit, pageToken);
  }

  public SessionQuery inPhases(Set<Phase> only) {
    return new SessionQuery(tenant, only, limit, pageToken);
  }

  public SessionQuery after(String token) {
    return new SessionQuery(tenant, phases, limit, Optional.of(token));
  }
}
