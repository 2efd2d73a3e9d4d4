package dev.berth.server.api;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.core.store.InstallationAudit;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.Admission;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET /admin/audit}: the stored audit log (intents, phases, who asked), oldest first, paged
 * by sequence. With {@code ?session=}, one session's entries: the admin reads any session's,
 * deleted ones included; a tenant its own sessions' (another's is 404, as everywhere). Without it,
 * every session's entries in the order they were appended: the admin's alone.
 */
final class AuditRoutes {

  static final int MAX_LIMIT = 1000;

  /** The most pages of the store one request reads while it skips entries before since. */
  static final int MAX_PAGES = 10;

  private final SessionStore store;
  private final InstallationAudit installation;
  private final Admission admission;
  private final JsonMapper json;

  AuditRoutes(
      SessionStore store, InstallationAudit installation, Admission admission, JsonMapper json) {
    this.store = store;
    this.installation = installation;
    this.admission = admission;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.get("/api/v1/admin/audit", this::audit);
  }

  private void audit(Context ctx) {
    Log log = log(Caller.of(ctx), ctx.queryParam("session"));
    long after = longParam(ctx, "after");
    int limit = SessionRoutes.intParam(ctx, "limit", 100, 1, MAX_LIMIT);
    Optional<Instant> since = since(ctx);
    List<Map<String, Object>> events = new ArrayList<>();
    long cursor = after;
    boolean more = true;
    int pages = 0;
    // since filters by time; pages are read until the answer is full, the log ends, or MAX_PAGES
    // were read (then nextAfter says where to go on: one request never reads a whole long log).
    while (events.size() < limit && more && pages++ < MAX_PAGES) {
      List<AuditEvent> page = log.page(cursor, limit);
      more = page.size() == limit;
      for (AuditEvent event : page) {
        cursor = event.sequence();
        if (since.isEmpty() || !event.at().isBefore(since.get())) {
          events.add(item(event));
          if (events.size() == limit) {
            break;
          }
        }
      }
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("events", events);
    if (events.size() == limit || more) {
      body.put("nextAfter", cursor);
    }
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }

  /**
   * The log {@code ?session=} names for {@code caller}: that session's, if the caller sees it; the
   * installation's without one, if the caller is the admin.
   */
  private Log log(Caller caller, @Nullable String session) {
    if (session == null || session.isEmpty()) {
      admission.requireAdmin(
          caller.scope().principal(),
          "read the installation's audit log (a tenant names its session: ?session=<id>)");
      return installation::allEvents;
    }
    SessionId id = SessionRoutes.id(session);
    if (store.get(id).filter(s -> caller.scope().sees(s)).isEmpty()) {
      throw new NotFoundException("session " + id);
    }
    return (after, limit) -> store.events(id, after, limit);
  }

  /** The log a request reads: a session's, or the installation's. */
  @FunctionalInterface
  private interface Log {
    List<AuditEvent> page(long after, int limit);
  }

  private static Map<String, Object> item(AuditEvent event) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("sequence", event.sequence());
    event.sessionId().ifPresent(s -> item.put("session", s.value()));
    item.put("at", event.at().toString());
    item.put("actor", event.actor());
    item.put("type", event.type());
    item.put("detail", event.detail());
    return item;
  }

  private static long longParam(Context ctx, String name) {
    String value = ctx.queryParam(name);
    if (value == null || value.isEmpty()) {
      return 0;
    }
    try {
      long n = Long.parseLong(value);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new InvalidValueException(
        "invalid input: " + name + " must be a sequence >= 0 (nextAfter of a previous page)");
  }

  private static Optional<Instant> since(Context ctx) {
    String value = ctx.queryParam("since");
    if (value == null || value.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(value));
    } catch (DateTimeParseException e) {
      throw new InvalidValueException(
          "invalid input: since must be an ISO 8601 instant such as 2026-12-03T10:00:00Z");
    }
  }
}
