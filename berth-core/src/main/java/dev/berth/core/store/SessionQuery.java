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
 * @param deleted whether sessions whose deletion was accepted (intent {@code TERMINATED}) are
 *     listed: the public API lists them only on request, the control plane's own loops see all
 */
public record SessionQuery(
    Optional<TenantId> tenant,
    Set<Phase> phases,
    int limit,
    Optional<String> pageToken,
    Deleted deleted) {

  public static final int MAX_LIMIT = 1000;

  /** Which sessions a listing takes by their deletion. */
  public enum Deleted {
    /** Every session, deleted or not (the control plane's own work). */
    INCLUDED,
    /** Only the sessions not deleted (the public listing). */
    EXCLUDED,
    /** Only the deleted sessions (the public listing with {@code deleted=true}). */
    ONLY;

    /** Whether {@code s} belongs to a listing of this kind. */
    public boolean admits(dev.berth.core.session.Session s) {
      boolean isDeleted = s.deleted();
      return switch (this) {
        case INCLUDED -> true;
        case EXCLUDED -> !isDeleted;
        case ONLY -> isDeleted;
      };
    }
  }

  public SessionQuery {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(pageToken, "pageToken");
    Objects.requireNonNull(deleted, "deleted");
    phases = Set.copyOf(phases);
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidValueException(
          "page limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
    }
  }

  public static SessionQuery all(int limit) {
    return new SessionQuery(Optional.empty(), Set.of(), limit, Optional.empty(), Deleted.INCLUDED);
  }

  public SessionQuery forTenant(TenantId t) {
    return new SessionQuery(Optional.of(t), phases, limit, pageToken, deleted);
  }

  public SessionQuery inPhases(Set<Phase> only) {
    return new SessionQuery(tenant, only, limit, pageToken, deleted);
  }

  public SessionQuery after(String token) {
    return new SessionQuery(tenant, phases, limit, Optional.of(token), deleted);
  }

  public SessionQuery withDeleted(Deleted which) {
    return new SessionQuery(tenant, phases, limit, pageToken, which);
  }
}
