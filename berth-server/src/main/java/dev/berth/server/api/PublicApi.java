package dev.berth.server.api;

import dev.berth.core.access.Scope;
import dev.berth.core.store.InstallationAudit;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.Admission;
import dev.berth.core.tenant.Principal;
import dev.berth.core.tenant.TenantDirectory;
import dev.berth.server.auth.Authenticator;
import dev.berth.server.auth.TenantTokens;
import dev.berth.server.auth.UnauthenticatedException;
import dev.berth.server.health.BuildVersion;
import dev.berth.server.health.Readiness;
import dev.berth.server.session.UseCases;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Cookie;
import io.javalin.http.SameSite;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/**
 * The public API (docs/api.md) on a Javalin configuration: authentication first, then the routes,
 * with every failure answered as problem+json by {@link ApiProblems}.
 */
public final class PublicApi {

  /** The cookie the web UI authenticates with, set by {@code GET /login?token=}. */
  public static final String COOKIE = "berth_token";

  private final Authenticator authenticator;
  private final JsonMapper json = JsonMapper.builder().build();
  private final ApiProblems problems = new ApiProblems(json);
  private final Bodies bodies = new Bodies();
  private final SessionRoutes sessionRoutes;
  private final StreamRoutes streamRoutes;
  private final TranscriptRoutes transcriptRoutes;
  private final dev.berth.core.access.WorkloadCatalog catalog;
  private final ExecutionRoutes executionRoutes;
  private final OperationRoutes operationRoutes;
  private final AdminRoutes adminRoutes;
  private final IdleRoutes idleRoutes;
  private final AuditRoutes auditRoutes;
  private final RuntimeRoutes runtimeRoutes;
  private final ApprovalRoutes approvalRoutes;
  private final GatewayRoutes gatewayRoutes;
  private final WebUi webUi = WebUi.fromClasspath();
  private final AttachProxy attach;
  private final OpenApiSpec spec = OpenApiSpec.load();
  private final Readiness readiness;
  private final BuildVersion version;
  private final dev.berth.server.telemetry.Telemetry telemetry;
  private final boolean publicMetrics;
  private java.util.Optional<RecoveryRoutes> recoveryRoutes = java.util.Optional.empty();

  /**
   * The API routes that need no token: the probes, and the API's own description (what a client
   * needs to learn to authenticate must not need authentication).
   */
  private static final java.util.Set<String> UNAUTHENTICATED =
      java.util.Set.of("/api/v1/healthz", "/api/v1/readyz", "/api/v1/openapi.yaml");

  public <S extends SessionStore & InstallationAudit> PublicApi(
      UseCases sessions,
      Authenticator authenticator,
      TenantTokens tokens,
      TenantDirectory directory,
      Admission admission,
      S store,
      Readiness readiness,
      BuildVersion version,
      Metrics metrics) {
    this.authenticator = authenticator;
    this.readiness = readiness;
    this.version = version;
    this.telemetry = metrics.telemetry();
    this.publicMetrics = metrics.withoutToken();
    this.sessionRoutes = new SessionRoutes(sessions, bodies, json);
    this.streamRoutes = new StreamRoutes(sessions, telemetry.registry());
    this.transcriptRoutes = new TranscriptRoutes(sessions, json);
    this.catalog = sessions.catalog();
    this.executionRoutes = new ExecutionRoutes(sessions, bodies, json);
    this.operationRoutes = new OperationRoutes(sessions.lookup(), sessions.restores(), json);
    this.adminRoutes =
        new AdminRoutes(tokens, directory, admission, store, bodies, json, sessions.clock());
    this.idleRoutes = new IdleRoutes(sessions, bodies, json);
    this.auditRoutes = new AuditRoutes(store, store, admission, json);
    this.runtimeRoutes = new RuntimeRoutes(sessions, json);
    this.approvalRoutes = new ApprovalRoutes(sessions, sessions.approvals(), bodies, json);
    this.gatewayRoutes = new GatewayRoutes(sessions.approvals(), store, problems, json);
    this.attach = new AttachProxy(sessions, this::caller, telemetry.registry());
  }

  /**
   * The meters {@code GET /metrics} shows, and whether it asks for a token: by default it needs the
   * admin's (a scrape tells how many sessions are in each phase), as JupyterHub's does.
   */
  public record Metrics(dev.berth.server.telemetry.Telemetry telemetry, boolean withoutToken) {}

  /** Serves recovery mode's routes and refuses creates while it is on; before {@link #register}. */
  public PublicApi withRecovery(RecoveryRoutes routes) {
    this.recoveryRoutes = java.util.Optional.of(routes);
    return this;
  }

  public void register(JavalinConfig config) {
    var routes = config.routes;
    routes.get("/healthz", this::health);
    routes.get("/api/v1/healthz", this::health);
    routes.get("/readyz", this::ready);
    routes.get("/api/v1/readyz", this::ready);
    routes.get("/login", this::login);
    routes.post("/logout", this::logout);
    routes.get("/metrics", this::metrics);
    config.requestLogger.http(new RequestLog(telemetry));
    routes.before("/api/v1/*", this::authenticate);
    routes.get(
        "/api/v1/openapi.yaml",
        ctx -> ctx.contentType("application/yaml; charset=utf-8").result(spec.yaml()));
    routes.get("/api/v1/config", this::config);
    routes.get("/api/v1/whoami", this::whoami);
    routes.get(
        "/api/v1/version",
        ctx -> ctx.contentType("application/json").result(json.writeValueAsString(version)));
    recoveryRoutes.ifPresent(r -> r.register(routes));
    sessionRoutes.register(routes);
    streamRoutes.register(routes);
    transcriptRoutes.register(routes);
    executionRoutes.register(routes);
    operationRoutes.register(routes);
    adminRoutes.register(routes);
    idleRoutes.register(routes);
    auditRoutes.register(routes);
    runtimeRoutes.register(routes);
    approvalRoutes.register(routes);
    // Not under /api/v1: the proxies present a gateway key, not a bearer token.
    gatewayRoutes.register(routes);
    routes.ws(SessionRoutes.SESSION + "/attach", attach::configure);
    webUi.register(config);
    routes.exception(Exception.class, (e, ctx) -> problems.write(ctx, e));
    routes.error(
        404,
        ctx -> {
          if (ctx.result() == null && ctx.path().startsWith("/api/")) {
            problems.write(
                ctx,
                new ApiProblems.Kind(404, "NOT_FOUND"),
                "no route " + ctx.method() + " " + ctx.path() + "; see /api/v1/openapi.yaml");
          }
        });
  }

  private void health(Context ctx) {
    ctx.contentType("application/json").result("{\"status\":\"ok\"}");
  }

  /** 200 when every check passes, else 503; either way each check by name (no reasons). */
  private void ready(Context ctx) {
    Readiness.Answer answer = readiness.check();
    Map<String, Object> body = new java.util.LinkedHashMap<>();
    body.put("status", answer.ready() ? "ready" : "not ready");
    body.put("checks", answer.checks());
    ctx.status(answer.ready() ? 200 : 503)
        .contentType("application/json")
        .result(json.writeValueAsString(body));
  }

  private void metrics(Context ctx) {
    if (!publicMetrics) {
      Caller caller = caller(ctx.header("Authorization"), ctx.cookie(COOKIE));
      caller.attachTo(ctx);
      if (!(caller.scope().principal() instanceof Principal.Admin)) {
        throw new dev.berth.core.error.ForbiddenException(
            caller.actor(),
            "read /metrics",
            "the metrics are the administrator's; scrape with the admin token, or start the server"
                + " with --metrics-without-token");
      }
    }
    ctx.contentType(dev.berth.server.telemetry.Telemetry.CONTENT_TYPE).result(telemetry.scrape());
  }

  private void authenticate(Context ctx) {
    if (UNAUTHENTICATED.contains(ctx.path())) {
      return;
    }
    caller(ctx.header("Authorization"), ctx.cookie(COOKIE)).attachTo(ctx);
  }

  Caller caller(String authorization, String cookie) {
    Principal principal =
        authenticator.authenticate(Optional.ofNullable(authorization), Optional.ofNullable(cookie));
    String actor =
        switch (principal) {
          case Principal.Admin a -> "admin";
          case Principal.TenantPrincipal t -> "tenant:" + t.tenant().value();
        };
    return new Caller(new Scope(principal), actor);
  }

  /**
   * The login URL printed at first start: sets the cookie, then opens the UI. A browser whose token
   * is refused gets the UI's sign-in screen (still 401) instead of a JSON problem.
   */
  private void login(Context ctx) {
    String token = ctx.queryParam("token");
    try {
      authenticator.authenticateToken(token == null ? "" : token);
    } catch (UnauthenticatedException e) {
      if (WebUi.wantsHtml(ctx) && webUi.available()) {
        webUi.index(ctx, 401);
        return;
      }
      throw e;
    }
    Cookie cookie = new Cookie(COOKIE, token);
    cookie.setHttpOnly(true);
    cookie.setSameSite(SameSite.STRICT);
    cookie.setPath("/");
    ctx.cookie(cookie);
    ctx.redirect("/");
  }

  /** Signs this browser out: the cookie is emptied and expires now; the token stays valid. */
  private void logout(Context ctx) {
    Cookie cookie = new Cookie(COOKIE, "");
    cookie.setHttpOnly(true);
    cookie.setSameSite(SameSite.STRICT);
    cookie.setPath("/");
    cookie.setMaxAge(0);
    ctx.cookie(cookie);
    ctx.status(204);
  }

  /**
   * Who the token is: {@code {"principal":"admin"}} or {@code {"principal":"tenant","tenant":…}}.
   * For a client choosing what to offer (the web UI shows tenants to the admin only) without trying
   * an admin route and reading its 403.
   */
  private void whoami(Context ctx) {
    Map<String, Object> body = new java.util.LinkedHashMap<>();
    Caller.of(ctx)
        .scope()
        .tenant()
        .ifPresentOrElse(
            tenant -> {
              body.put("principal", "tenant");
              body.put("tenant", tenant.value());
            },
            () -> body.put("principal", "admin"));
    ctx.header("Cache-Control", "no-store");
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }

  /**
   * What this installation runs: the workload types (the agent types only where their CLI and
   * provider are configured), each agent type's default model and catalog (not an allowlist) and
   * whether it takes plugins, and the marketplace's plugins ({@code plugins}, empty without one);
   * {@code claudeCode} is the original platform's member for its one agent type, kept for its
   * clients.
   */
  private void config(Context ctx) {
    ctx.header("Cache-Control", "no-store");
    java.util.List<String> types = new java.util.ArrayList<>(java.util.List.of("shell"));
    Map<String, Object> agents = new java.util.LinkedHashMap<>();
    Map<String, Object> claudeCode =
        Map.of("defaultModel", "platform-default", "models", java.util.List.of());
    for (var offer : catalog.configuredAgents()) {
      types.add(offer.type().value());
      Map<String, Object> entry =
          Map.of(
              "defaultModel",
              offer.defaultModel(),
              "models",
              offer.models(),
              "takesPlugins",
              offer.takesPlugins());
      agents.put(offer.type().value(), entry);
      if (offer.type().value().equals("claude-code")) {
        claudeCode = Map.of("defaultModel", offer.defaultModel(), "models", offer.models());
      }
    }
    ctx.contentType("application/json")
        .result(
            json.writeValueAsString(
                Map.of(
                    "workloadTypes",
                    types,
                    "claudeCode",
                    claudeCode,
                    "agents",
                    agents,
                    "plugins",
                    catalog.marketplace().stream().map(p -> p.value()).toList())));
  }
}
