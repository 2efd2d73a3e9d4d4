package dev.berth.server.api;

import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Runs the tenant isolation sweep's cases against a {@link TwoTenants}: each case is one way tenant
 * B reaches for tenant A's things, and says what B must get. The outcomes of a whole sweep are
 * kept, so the checks of one test class run it once.
 */
final class IsolationProbe {

  /** One way tenant B calls a route; placeholders are listed on TenantIsolationSweepTest.cases. */
  sealed interface Case
      permits Foreign, ForeignChild, AdminOnly, Listing, Refused, Gateway, Attach {}

  /** B on A's ids, and B on missing ids: the same 404. */
  record Foreign(String method, String path, @Nullable String body) implements Case {}

  /** B on its own session with A's child id, and with a missing child id: the same 404. */
  record ForeignChild(String method, String path, @Nullable String body) implements Case {}

  /** B gets the administrator's refusal, 403 FORBIDDEN. */
  record AdminOnly(String method, String path, @Nullable String body) implements Case {}

  /** Whatever B gets (never a 5xx), nothing of A's is in it. */
  record Listing(String method, String path, @Nullable String body) implements Case {}

  /** B is refused with {@code status}, and nothing of A's is in the answer. */
  record Refused(String method, String path, @Nullable String body, int status) implements Case {}

  /** B's runtime's gateway key on A's approval, and on a missing one: the same 403. */
  record Gateway(String method, String path, @Nullable String body) implements Case {}

  /** B's attach to A's session, and to a missing one: the same close code and reason. */
  record Attach() implements Case {}

  /** What one case found: a line for the report, and what is wrong, if anything. */
  record Outcome(String route, String summary, Optional<String> failure) {}

  static Case foreign(String method, String path, @Nullable String body) {
    return new Foreign(method, path, body);
  }

  static Case foreignChild(String method, String path, @Nullable String body) {
    return new ForeignChild(method, path, body);
  }

  static Case adminOnly(String method, String path, @Nullable String body) {
    return new AdminOnly(method, path, body);
  }

  static Case listing(String path) {
    return new Listing("GET", path, null);
  }

  static Case listing(String method, String path, @Nullable String body) {
    return new Listing(method, path, body);
  }

  static Case refused(String method, String path, @Nullable String body, int status) {
    return new Refused(method, path, body, status);
  }

  static Case gateway(String method, String path, @Nullable String body) {
    return new Gateway(method, path, body);
  }

  static Case attach() {
    return new Attach();
  }

  private final TwoTenants t;
  private final String missingSession;
  private final String missingExecution = "x-" + "0123456789abcdef01234567";
  private @Nullable List<Outcome> outcomes;

  IsolationProbe(TwoTenants target) {
    this.t = target;
    String candidate = "0123456789abcdef0123456789abcdef";
    this.missingSession =
        candidate.equals(target.sessionA) ? "f" + candidate.substring(1) : candidate;
  }

  /** Runs every case of {@code cases} once per probe, printing a line per case. */
  synchronized List<Outcome> runAll(Map<String, List<Case>> cases) {
    if (outcomes == null) {
      List<Outcome> all = new ArrayList<>();
      for (Map.Entry<String, List<Case>> route : cases.entrySet()) {
        for (Case c : route.getValue()) {
          all.add(run(route.getKey(), c));
        }
      }
      System.out.println(
          "tenant isolation sweep:\n  "
              + String.join(
                  "\n  ",
                  all.stream()
                      .map(o -> String.format("%-55s %s", o.route(), o.summary()))
                      .toList()));
      outcomes = List.copyOf(all);
    }
    return outcomes;
  }

  private Outcome run(String route, Case c) {
    return switch (c) {
      case Foreign f ->
          same(
              route,
              call(f.method(), f.path(), f.body(), foreignIds(), t.tokenB),
              foreignIds(),
              call(f.method(), f.path(), f.body(), missingIds(), t.tokenB),
              missingIds(),
              404);
      case ForeignChild f -> {
        Map<String, String> foreign = withOwnSession(foreignIds());
        Map<String, String> missing = withOwnSession(missingIds());
        yield same(
            route + " (B's own session)",
            call(f.method(), f.path(), f.body(), foreign, t.tokenB),
            foreign,
            call(f.method(), f.path(), f.body(), missing, t.tokenB),
            missing,
            404);
      }
      case AdminOnly a ->
          adminOnly(route, call(a.method(), a.path(), a.body(), foreignIds(), t.tokenB));
      case Listing l ->
          shows(route, call(l.method(), l.path(), l.body(), foreignIds(), t.tokenB), -1);
      case Refused r ->
          shows(route, call(r.method(), r.path(), r.body(), foreignIds(), t.tokenB), r.status());
      case Gateway g ->
          same(
              route,
              gatewayCall(g, foreignIds()),
              foreignIds(),
              gatewayCall(g, missingIds()),
              missingIds(),
              403);
      case Attach a -> attach(route);
    };
  }

  private Map<String, String> foreignIds() {
    Map<String, String> ids = new LinkedHashMap<>();
    ids.put("{approvalId}", t.approvalA);
    ids.put("{opid}", t.operationA);
    ids.put("{eid}", t.executionA);
    ids.put("{id}", t.sessionA);
    ids.put("{tokenIdA}", t.tokenIdA);
    ids.put("{tokenB}", t.tokenB);
    return ids;
  }

  private Map<String, String> missingIds() {
    Map<String, String> ids = new LinkedHashMap<>();
    ids.put("{approvalId}", t.approvalA.replace(t.sessionA, missingSession));
    ids.put("{opid}", t.operationA.replace(t.sessionA, missingSession));
    ids.put("{eid}", missingExecution);
    ids.put("{id}", missingSession);
    return ids;
  }

  private Map<String, String> withOwnSession(Map<String, String> ids) {
    Map<String, String> own = new LinkedHashMap<>(ids);
    own.put("{id}", t.sessionB);
    return own;
  }

  private HttpResponse<String> call(
      String method, String path, @Nullable String body, Map<String, String> ids, String token) {
    return t.send(method, fill(path, ids), token, body == null ? null : fill(body, ids));
  }

  private HttpResponse<String> gatewayCall(Gateway g, Map<String, String> ids) {
    return t.gateway(
        g.method(),
        fill(g.path(), ids),
        t.gatewayKeyB,
        g.body() == null ? null : fill(g.body(), ids));
  }

  private static String fill(String text, Map<String, String> ids) {
    String filled = text;
    for (Map.Entry<String, String> id : ids.entrySet()) {
      filled = filled.replace(id.getKey(), id.getValue());
    }
    return filled;
  }

  /** {@code text} with each id written back as its placeholder (the longest ids first). */
  private static String unfill(String text, Map<String, String> ids) {
    String plain = text;
    for (Map.Entry<String, String> id : ids.entrySet()) {
      plain = plain.replace(id.getValue(), id.getKey());
    }
    return plain;
  }

  private static Outcome same(
      String route,
      HttpResponse<String> foreign,
      Map<String, String> foreignIds,
      HttpResponse<String> missing,
      Map<String, String> missingIds,
      int status) {
    String seen = describe(foreign) + " vs missing " + describe(missing);
    List<String> wrong = new ArrayList<>();
    if (foreign.statusCode() != status) {
      wrong.add("B on A's ids got " + foreign.statusCode() + ", not " + status);
    }
    if (foreign.statusCode() != missing.statusCode()) {
      wrong.add(
          "status " + foreign.statusCode() + " where a missing id gets " + missing.statusCode());
    }
    if (!contentType(foreign).equals(contentType(missing))) {
      wrong.add("content type " + contentType(foreign) + " vs " + contentType(missing));
    }
    String a = unfill(foreign.body(), foreignIds);
    String b = unfill(missing.body(), missingIds);
    if (!a.equals(b)) {
      wrong.add("body differs from a missing id's:\n      " + a + "\n      " + b);
    }
    return outcome(route, seen, wrong);
  }

  private Outcome adminOnly(String route, HttpResponse<String> answer) {
    List<String> wrong = new ArrayList<>();
    if (answer.statusCode() != 403 || !"FORBIDDEN".equals(reason(answer))) {
      wrong.add("not the admin refusal: " + answer.statusCode() + " " + answer.body());
    }
    wrong.addAll(leaks(answer));
    return outcome(route, describe(answer), wrong);
  }

  private Outcome shows(String route, HttpResponse<String> answer, int status) {
    List<String> wrong = new ArrayList<>();
    if (answer.statusCode() >= 500) {
      wrong.add("answered " + answer.statusCode() + ": " + answer.body());
    }
    if (status > 0 && answer.statusCode() != status) {
      wrong.add("answered " + answer.statusCode() + ", not " + status + ": " + answer.body());
    }
    wrong.addAll(leaks(answer));
    return outcome(route, describe(answer) + ", nothing of A's", wrong);
  }

  /** A's secrets in the answer, but for those B itself sent (an echo teaches B nothing). */
  private List<String> leaks(HttpResponse<String> answer) {
    List<String> leaked = new ArrayList<>();
    String all = answer.headers().map() + "\n" + answer.body();
    String asked = answer.request().uri().toString();
    for (String secret : t.secretsOfA()) {
      if (all.contains(secret) && !asked.contains(secret)) {
        leaked.add("shows A's " + secret);
      }
    }
    return leaked;
  }

  private Outcome attach(String route) {
    Closed foreign = attachAs(t.tokenB, t.sessionA);
    Closed missing = attachAs(t.tokenB, missingSession);
    List<String> wrong = new ArrayList<>();
    String a = foreign.code() + " " + foreign.reason().replace(t.sessionA, "{id}");
    String b = missing.code() + " " + missing.reason().replace(missingSession, "{id}");
    if (foreign.code() < 4000 && foreign.code() != 1008) {
      wrong.add("B's attach to A's session was not refused: " + a);
    }
    if (!a.equals(b)) {
      wrong.add("closed " + a + " where a missing session closes " + b);
    }
    return outcome(route, "closed " + a + " vs missing " + b, wrong);
  }

  /** How the server closed an attach (or 0 and what happened when it did not). */
  private record Closed(int code, String reason) {}

  private Closed attachAs(String token, String session) {
    CompletableFuture<Closed> closed = new CompletableFuture<>();
    WebSocket.Listener listener =
        new WebSocket.Listener() {
          @Override
          public CompletionStage<?> onClose(WebSocket socket, int code, String reason) {
            closed.complete(new Closed(code, reason));
            return null;
          }

          @Override
          public void onError(WebSocket socket, Throwable error) {
            closed.complete(new Closed(0, "error " + error));
          }
        };
    try {
      WebSocket socket =
          t.http
              .newWebSocketBuilder()
              .header("Authorization", "Bearer " + token)
              .buildAsync(
                  java.net.URI.create(
                      "ws://127.0.0.1:" + t.port() + "/api/v1/sessions/" + session + "/attach"),
                  listener)
              .get(TwoTenants.REQUEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      Closed result = closed.get(TwoTenants.REQUEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      socket.abort();
      return result;
    } catch (java.util.concurrent.TimeoutException e) {
      return new Closed(0, "stayed open for " + TwoTenants.REQUEST_TIMEOUT);
    } catch (java.util.concurrent.ExecutionException e) {
      return new Closed(0, "upgrade failed: " + e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static Outcome outcome(String route, String seen, List<String> wrong) {
    return new Outcome(
        route,
        (wrong.isEmpty() ? "ok   " : "FAIL ") + seen,
        wrong.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", wrong)));
  }

  private static String describe(HttpResponse<String> answer) {
    return answer.statusCode() + " " + reason(answer);
  }

  private static String contentType(HttpResponse<String> answer) {
    return answer.headers().firstValue("Content-Type").orElse("-");
  }

  static String reason(HttpResponse<String> answer) {
    if (!contentType(answer).startsWith("application/problem+json")) {
      return "-";
    }
    try {
      return TwoTenants.json(answer).path("reason").asString("-");
    } catch (RuntimeException e) {
      return "(unreadable problem)";
    }
  }
}
