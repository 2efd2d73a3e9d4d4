package dev.berth.server.api;

import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.Admission;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.tenant.TenantDirectory;
import dev.berth.core.tenant.TokenDigest;
import dev.berth.server.api.body.CreateTokenBody;
import dev.berth.server.api.body.PutTenantBody;
import dev.berth.server.auth.IssuedToken;
import dev.berth.server.auth.TenantTokens;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import tools.jackson.databind.json.JsonMapper;

/** Tenants and their tokens; the administrator only. */
final class AdminRoutes {

  private final TenantTokens tokens;
  private final TenantDirectory directory;
  private final Admission admission;
  private final SessionStore store;
  private final Bodies bodies;
  private final JsonMapper json;
  private final InstantSource clock;

  AdminRoutes(
      TenantTokens tokens,
      TenantDirectory directory,
      Admission admission,
      SessionStore store,
      Bodies bodies,
      JsonMapper json,
      InstantSource clock) {
    this.tokens = tokens;
    this.directory = directory;
    this.admission = admission;
    this.store = store;
    this.bodies = bodies;
    this.json = json;
    this.clock = clock;
  }

  void register(RoutesConfig routes) {
    routes.post("/api/v1/admin/tokens", this::issue);
    routes.get("/api/v1/admin/tokens", this::listTokens);
    routes.delete("/api/v1/admin/tokens/{id}", this::revoke);
    routes.get("/api/v1/admin/tenants", this::tenants);
    routes.put("/api/v1/admin/tenants/{tenant}", this::put);
  }

  /**
   * Creates the tenant or replaces its whole grant, service accounts included; issues no token (a
   * tenant whose clients authenticate with service account tokens needs none).
   */
  private void put(Context ctx) {
    admission.requireAdmin(Caller.of(ctx).scope().principal(), "manage tenants");
    PutTenantBody body = bodies.read(ctx, PutTenantBody.class, false);
    Tenant requested = body.tenant(ctx.pathParam("tenant"), clock.instant());
    boolean existed = directory.tenant(requested.id()).isPresent();
    Tenant stored = directory.upsertTenant(requested);
    ctx.status(existed ? 200 : 201)
        .contentType("application/json")
        .result(json.writeValueAsString(item(stored)));
  }

  private void issue(Context ctx) {
    admission.requireAdmin(Caller.of(ctx).scope().principal(), "issue tenant tokens");
    CreateTokenBody body = bodies.read(ctx, CreateTokenBody.class, false);
    IssuedToken issued =
        tokens.issue(
            new TenantId(body.tenant()),
            body.workloadTypes().stream().map(WorkloadType::new).collect(Collectors.toSet()),
            body.maxSessions(),
            body.networkAccess());
    ctx.status(201)
        .contentType("application/json")
        .result(
            json.writeValueAsString(
                Map.of(
                    "token",
                    issued.token(),
                    "tenant",
                    issued.tenant().id().value(),
                    "id",
                    TokenDigest.of(issued.token()).hex())));
  }

  /**
   * Every tenant token by its id (the SHA-256 digest of the token, which is all the store keeps:
   * the token itself cannot be shown again), its tenant and when it was issued.
   */
  private void listTokens(Context ctx) {
    admission.requireAdmin(Caller.of(ctx).scope().principal(), "list tenant tokens");
    var list =
        directory.tokens().stream()
            .map(
                t ->
                    Map.of(
                        "id",
                        t.digest().hex(),
                        "tenant",
                        t.tenant().value(),
                        "createdAt",
                        t.createdAt().toString()))
            .toList();
    ctx.contentType("application/json").result(json.writeValueAsString(Map.of("tokens", list)));
  }

  /** Revokes a token by its id: its next request is 401 (an open attach keeps its connection). */
  private void revoke(Context ctx) {
    admission.requireAdmin(Caller.of(ctx).scope().principal(), "revoke tenant tokens");
    String id = ctx.pathParam("id");
    TokenDigest digest;
    try {
      digest = new TokenDigest(id);
    } catch (RuntimeException e) {
      throw new dev.berth.core.error.NotFoundException(
          "token " + RequestLog.safe(id) + " (an id is the 64 hex digits GET /admin/tokens lists)");
    }
    if (!directory.revokeToken(digest)) {
      throw new dev.berth.core.error.NotFoundException(
          "token " + id + " (already revoked, or never issued; GET /admin/tokens lists them)");
    }
    ctx.status(204);
  }

  private void tenants(Context ctx) {
    admission.requireAdmin(Caller.of(ctx).scope().principal(), "list tenants");
    var list = directory.tenants().stream().map(this::item).toList();
    ctx.contentType("application/json").result(json.writeValueAsString(Map.of("tenants", list)));
  }

  private Map<String, Object> item(Tenant t) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("tenant", t.id().value());
    item.put("workloadTypes", t.workloadTypeNames());
    item.put("maxSessions", t.maxSessions());
    item.put("network", t.network().wireName());
    item.put("serviceAccounts", t.serviceAccounts().stream().map(Object::toString).toList());
    item.put("approval", t.approval().wireName());
    t.disconnect()
        .ifPresent(
            d ->
                item.put(
                    "disconnect",
                    Map.of(
                        "policy", d.policy().wireName(), "graceSeconds", d.grace().toSeconds())));
    item.put("sessions", Admission.held(store, t.id()));
    return item;
  }
}
