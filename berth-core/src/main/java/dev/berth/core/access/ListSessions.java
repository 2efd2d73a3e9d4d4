package dev.berth.core.access;

import dev.berth.core.session.PublicState;
import dev.berth.core.session.Session;
import dev.berth.core.session.TenantId;
import dev.berth.core.store.Page;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.Admission;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What {@code GET /sessions} lists: every session the caller sees, oldest first, either in pages
 * ({@code limit}) or all at once (no {@code limit}, the original's contract), narrowed to a tenant
 * (admin), to public states (empty: any), and to deleted sessions only or to live ones only.
 */
public final class ListSessions {

  /** What a listing asks for. */
  public record Listing(
      Optional<TenantId> tenant,
      Set<PublicState> states,
      boolean deleted,
      OptionalInt limit,
      Optional<String> pageToken) {}

  private final SessionStore store;
  private final Admission admission;
  private final InstantSource clock;
  private final Duration idleAfter;

  public ListSessions(
      SessionStore store, Admission admission, InstantSource clock, Duration idleAfter) {
    this.store = store;
    this.admission = admission;
    this.clock = clock;
    this.idleAfter = idleAfter;
  }

  public Page<Session> list(Scope scope, Listing listing) {
    SessionQuery query =
        SessionQuery.all(listing.limit().orElse(SessionQuery.MAX_LIMIT))
            .withDeleted(
                listing.deleted() ? SessionQuery.Deleted.ONLY : SessionQuery.Deleted.EXCLUDED);
    Optional<TenantId> only = admission.listScope(scope.principal(), listing.tenant());
    if (only.isPresent()) {
      query = query.forTenant(only.get());
    }
    if (listing.pageToken().isPresent()) {
      query = query.after(listing.pageToken().get());
    }
    Instant now = clock.instant();
    Predicate<Session> wanted =
        s ->
            listing.states().isEmpty()
                || listing.states().contains(PublicState.of(s, now, idleAfter));
    if (listing.limit().isPresent()) {
      Page<Session> page = store.list(query);
      return new Page<>(page.items().stream().filter(wanted).toList(), page.nextPageToken());
    }
    List<Session> all = new ArrayList<>();
    Page<Session> page = store.list(query);
    while (true) {
      page.items().stream().filter(wanted).forEach(all::add);
      if (page.nextPageToken().isEmpty()) {
        return new Page<>(all, Optional.empty());
      }
      page = store.list(query.after(page.nextPageToken().get()));
    }
  }
}
