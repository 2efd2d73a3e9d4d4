package dev.berth.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every route of the API description (openapi.yaml, read at test time) called by tenant B on tenant
 * A's resources: a route on A's session, execution, operation or approval answers B exactly as a
 * missing id does (status, content type and body, the ids aside); an admin route refuses B as it
 * refuses any tenant; a route without such an id shows B nothing of A's. A route of the description
 * that has no case here fails the sweep, so a new route cannot ship unswept.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(TwoTenants.Shared.class)
class TenantIsolationSweepTest {

  private TwoTenants t;
  private IsolationProbe probe;

  @BeforeAll
  void target(TwoTenants target) {
    t = target;
    probe = new IsolationProbe(target);
  }

  /**
   * How tenant B calls each route on A's resources. Placeholders in paths and bodies: {@code {id}}
   * A's session (or the missing one), {@code {eid}} an execution, {@code {opid}} an operation,
   * {@code {approvalId}} an approval, {@code {own}} B's own session.
   */
  static Map<String, List<IsolationProbe.Case>> cases() {
    Map<String, List<IsolationProbe.Case>> c = new LinkedHashMap<>();
    // Routes without a tenant's id: they show B nothing of A's.
    for (String route :
        List.of(
            "GET /healthz",
            "GET /readyz",
            "GET /api/v1/healthz",
            "GET /api/v1/readyz",
            "GET /api/v1/config",
            "GET /api/v1/whoami",
            "GET /api/v1/version",
            "GET /api/v1/openapi.yaml")) {
      c.put(route, List.of(IsolationProbe.listing(route.substring(4))));
    }
    c.put("POST /logout", List.of(IsolationProbe.listing("POST", "/logout", null)));
    c.put("GET /login", List.of(IsolationProbe.listing("/login?token={tokenB}")));
    c.put("GET /metrics", List.of(IsolationProbe.adminOnly("GET", "/metrics", null)));
    c.put(
        "GET /api/v1/sessions",
        List.of(
            IsolationProbe.listing("/api/v1/sessions"),
            IsolationProbe.listing("/api/v1/sessions?deleted=true"),
            IsolationProbe.listing("/api/v1/sessions?limit=1000"),
            IsolationProbe.listing("/api/v1/sessions?tenant=acme")));
    c.put(
        "POST /api/v1/sessions",
        List.of(
            IsolationProbe.refused(
                "POST", "/api/v1/sessions", "{\"name\":\"into-a\",\"tenant\":\"acme\"}", 403)));
    // A's session and what hangs off it.
    foreign(c, "GET /api/v1/sessions/{id}", null);
    foreign(c, "DELETE /api/v1/sessions/{id}", null);
    foreign(c, "POST /api/v1/sessions/{id}/read", "{\"offset\":0}");
    foreign(c, "POST /api/v1/sessions/{id}/write", "{\"payload\":\"echo pwned\\n\"}");
    foreign(c, "POST /api/v1/sessions/{id}/switch", "{}");
    foreign(c, "POST /api/v1/sessions/{id}/snapshot", "{}");
    foreign(c, "POST /api/v1/sessions/{id}/recover", "{}");
    foreign(c, "GET /api/v1/sessions/{id}/stream", null);
    foreign(c, "GET /api/v1/sessions/{id}/transcript", null);
    foreign(c, "GET /api/v1/sessions/{id}/transcript/stream", null);
    foreign(c, "POST /api/v1/sessions/{id}/plugins/refresh", "{}");
    foreign(c, "GET /api/v1/sessions/{id}/runtime", null);
    c.put("GET /api/v1/sessions/{id}/attach", List.of(IsolationProbe.attach()));
    foreign(c, "POST /api/v1/sessions/{id}/executions", "{\"command\":\"true\"}");
    foreign(c, "GET /api/v1/sessions/{id}/executions", null);
    foreignAndChild(c, "GET /api/v1/sessions/{id}/executions/{eid}", null);
    foreignAndChild(c, "POST /api/v1/sessions/{id}/executions/{eid}/cancel", null);
    foreignAndChild(c, "GET /api/v1/sessions/{id}/executions/{eid}/output", null);
    foreign(c, "GET /api/v1/sessions/{id}/operations", null);
    foreign(c, "GET /api/v1/sessions/{id}/idle", null);
    foreign(c, "POST /api/v1/sessions/{id}/keepalive", "{\"seconds\":60}");
    foreign(c, "GET /api/v1/sessions/{id}/approvals", null);
    foreignAndChild(
        c, "POST /api/v1/sessions/{id}/approvals/{approvalId}", "{\"decision\":\"approve\"}");
    foreign(c, "GET /api/v1/operations/{opid}", null);
    foreign(c, "GET /api/v1/operations/{opid}/events", null);
    // The approval gateway: B's runtime's key on A's approval is refused as on a missing one.
    c.put(
        "POST /gateway/api/requests",
        List.of(
            IsolationProbe.gateway(
                "POST",
                "/gateway/api/requests",
                "{\"id\":\"{approvalId}\",\"tool\":\"WebFetch\",\"argumentsDigest\":\"sha256:"
                    + "cd".repeat(32)
                    + "\"}")));
    c.put(
        "GET /gateway/api/requests/{approvalId}",
        List.of(IsolationProbe.gateway("GET", "/gateway/api/requests/{approvalId}", null)));
    c.put(
        "DELETE /gateway/api/requests/{approvalId}",
        List.of(IsolationProbe.gateway("DELETE", "/gateway/api/requests/{approvalId}", null)));
    // The administrator's routes.
    c.put(
        "GET /api/v1/admin/sessions/{id}/operations",
        List.of(IsolationProbe.adminOnly("GET", "/api/v1/admin/sessions/{id}/operations", null)));
    c.put(
        "GET /api/v1/admin/recovery",
        List.of(IsolationProbe.adminOnly("GET", "/api/v1/admin/recovery", null)));
    c.put(
        "POST /api/v1/admin/recovery/approve",
        List.of(IsolationProbe.adminOnly("POST", "/api/v1/admin/recovery/approve", "{}")));
    c.put(
        "POST /api/v1/admin/tokens",
        List.of(
            IsolationProbe.adminOnly(
                "POST",
                "/api/v1/admin/tokens",
                "{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\"],\"maxSessions\":1}")));
    c.put(
        "GET /api/v1/admin/tokens",
        List.of(IsolationProbe.adminOnly("GET", "/api/v1/admin/tokens", null)));
    c.put(
        "DELETE /api/v1/admin/tokens/{id}",
        List.of(IsolationProbe.adminOnly("DELETE", "/api/v1/admin/tokens/{tokenIdA}", null)));
    c.put(
        "GET /api/v1/admin/tenants",
        List.of(IsolationProbe.adminOnly("GET", "/api/v1/admin/tenants", null)));
    c.put(
        "PUT /api/v1/admin/tenants/{tenant}",
        List.of(
            IsolationProbe.adminOnly(
                "PUT",
                "/api/v1/admin/tenants/acme",
                "{\"workloadTypes\":[\"shell\"],\"maxSessions\":1}")));
    c.put(
        "GET /api/v1/admin/audit",
        List.of(
            IsolationProbe.adminOnly("GET", "/api/v1/admin/audit", null),
            IsolationProbe.foreign("GET", "/api/v1/admin/audit?session={id}", null)));
    return c;
  }

  private static void foreign(Map<String, List<IsolationProbe.Case>> c, String route, String body) {
    String[] parts = route.split(" ", 2);
    c.put(route, List.of(IsolationProbe.foreign(parts[0], parts[1], body)));
  }

  /** A's child id on A's session, and A's child id on B's own session: both as missing ones. */
  private static void foreignAndChild(
      Map<String, List<IsolationProbe.Case>> c, String route, String body) {
    String[] parts = route.split(" ", 2);
    c.put(
        route,
        List.of(
            IsolationProbe.foreign(parts[0], parts[1], body),
            IsolationProbe.foreignChild(parts[0], parts[1], body)));
  }

  @Test
  void everyRouteOfTheApiDescriptionHasACaseInTheSweep() {
    Set<String> described = new TreeSet<>();
    for (OpenApiSpec.Route route : OpenApiSpec.load().routes()) {
      described.add(route.toString());
    }
    Set<String> unswept = new TreeSet<>(described);
    unswept.removeAll(cases().keySet());
    Set<String> stale = new TreeSet<>(cases().keySet());
    stale.removeAll(described);

    assertThat(unswept)
        .as(
            "routes of openapi.yaml that the tenant isolation sweep does not call: add a case for"
                + " each to TenantIsolationSweepTest.cases() (foreign(...) for a route on a"
                + " session or one of its ids, adminOnly(...) for the administrator's, listing(...)"
                + " for one that shows a tenant its own things)")
        .isEmpty();
    assertThat(stale)
        .as("cases of TenantIsolationSweepTest.cases() for routes openapi.yaml no longer has")
        .isEmpty();
  }

  @Test
  void tenantBOnTenantAsResourcesIsAnsweredLikeAMissingIdOnEveryRoute() {
    List<String> failures = new ArrayList<>();
    for (IsolationProbe.Outcome outcome : probe.runAll(cases())) {
      outcome.failure().ifPresent(f -> failures.add(outcome.route() + ": " + f));
    }

    assertThat(failures).as("routes that told tenant B about tenant A's resources").isEmpty();
  }

  @Test
  void afterTheSweepTenantAsSessionTokenAndApprovalAreAsTheyWere() {
    probe.runAll(cases());

    HttpResponse<String> session = t.send("GET", "/api/v1/sessions/" + t.sessionA, t.tokenA, null);
    assertThat(session.statusCode()).as(session.body()).isEqualTo(200);
    assertThat(TwoTenants.json(session).path("name").asString()).isEqualTo("a-private");
    assertThat(TwoTenants.json(session).path("state").asString()).isEqualTo(t.stateA);
    assertThat(TwoTenants.json(session).path("intentVersion").asLong())
        .as("no call of B's changed what A's session is asked to be")
        .isEqualTo(t.intentVersionA);
    assertThat(TwoTenants.json(session).path("lastAccess").asString())
        .as("no call of B's counted as an access to A's session")
        .isEqualTo(t.lastAccessA);
    HttpResponse<String> approvals =
        t.send("GET", "/api/v1/sessions/" + t.sessionA + "/approvals", t.tokenA, null);
    assertThat(TwoTenants.json(approvals).path("items").get(0).path("state").asString())
        .isEqualTo("pending");
    HttpResponse<String> tenants = t.send("GET", "/api/v1/admin/tenants", TwoTenants.ADMIN, null);
    assertThat(TwoTenants.json(tenants).path("tenants").values())
        .anySatisfy(
            tenant -> {
              assertThat(tenant.path("tenant").asString()).isEqualTo("acme");
              assertThat(tenant.path("maxSessions").asInt()).isEqualTo(20);
            });
    HttpResponse<String> sessions = t.send("GET", "/api/v1/sessions", t.tokenA, null);
    assertThat(TwoTenants.json(sessions).path("sessions").values())
        .extracting(s -> s.path("name").asString())
        .containsExactly("a-private");
  }
}
