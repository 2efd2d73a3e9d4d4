package dev.berth.server.api;

import dev.berth.core.access.ExplainIdle;
import dev.berth.core.idle.IdleDecision;
import dev.berth.server.api.body.KeepAliveBody;
import dev.berth.server.session.UseCases;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/** The idle policy, explained ({@code GET idle}), and keep-alives ({@code POST keepalive}). */
final class IdleRoutes {

  private final UseCases sessions;
  private final Bodies bodies;
  private final JsonMapper json;

  IdleRoutes(UseCases sessions, Bodies bodies, JsonMapper json) {
    this.sessions = sessions;
    this.bodies = bodies;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.get(SessionRoutes.SESSION + "/idle", this::idle);
    routes.post(SessionRoutes.SESSION + "/keepalive", this::keepAlive);
  }

  private void idle(Context ctx) {
    ExplainIdle.IdleView view =
        sessions.idle().explain(Caller.of(ctx).scope(), SessionRoutes.id(ctx));
    Map<String, Object> body = new LinkedHashMap<>();
    switch (view.decision()) {
      case IdleDecision.Active a -> {
        body.put("decision", "active");
        body.put("reason", "accessed recently; idle at " + a.idleAt());
        body.put("idleAt", a.idleAt().toString());
        body.put("suspendAt", a.suspendAt().toString());
      }
      case IdleDecision.Idle i -> {
        body.put("decision", "idle");
        body.put("reason", "no client access since " + view.session().activity().lastAccess());
        body.put("idleAt", i.since().toString());
        body.put("suspendAt", i.suspendAt().toString());
      }
      case IdleDecision.Held h -> {
        body.put("decision", "held");
        body.put("reason", holdReason(h));
        body.put("hold", h.hold().name());
        body.put("heldUntil", h.until().toString());
      }
      case IdleDecision.Suspend s -> {
        body.put("decision", "suspend");
        body.put("reason", "idle since " + s.idleSince() + " and nothing holds it");
        body.put("idleAt", s.idleSince().toString());
      }
      case IdleDecision.NotApplicable n -> {
        body.put("decision", "not-applicable");
        body.put("reason", n.why());
      }
    }
    body.put("lastAccess", view.session().activity().lastAccess().toString());
    body.put("suspendEnabled", view.suspendEnabled());
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }

  private void keepAlive(Context ctx) {
    KeepAliveBody body = bodies.read(ctx, KeepAliveBody.class, true);
    var session =
        sessions
            .keepAlive()
            .keepAlive(
                Caller.of(ctx).scope(),
                SessionRoutes.id(ctx),
                Optional.ofNullable(body.seconds()).map(Duration::ofSeconds));
    ctx.contentType("application/json")
        .result(
            json.writeValueAsString(
                ApiJson.session(
                    session,
                    sessions.clock().instant(),
                    sessions.settings().idleAfter(),
                    sessions.restores().of(session.id()),
                    sessions.approvals().read().countPending(session.id()))));
  }

  private static String holdReason(IdleDecision.Held held) {
    return switch (held.hold()) {
      case KEEP_ALIVE -> "a keep-alive holds it until " + held.until();
      case EXECUTION_RUNNING -> "a running execution holds it, until " + held.until() + " at most";
      case APPROVAL_PENDING ->
          "a tool call waiting for approval holds it, until "
              + held.until()
              + " at most (when the approval expires)";
      case SHELL_BUSY ->
          "a foreground job in the shell holds it, until " + held.until() + " at most";
    };
  }
}
