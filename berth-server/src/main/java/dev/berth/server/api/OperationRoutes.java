package dev.berth.server.api;

import dev.berth.core.operation.OperationId;
import dev.berth.server.session.SessionService;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** Operations: the durable record of each lifecycle change, for timelines and progress. */
final class OperationRoutes {

  private final SessionService sessions;
  private final JsonMapper json;

  OperationRoutes(SessionService sessions, JsonMapper json) {
    this.sessions = sessions;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.get(
        SessionRoutes.SESSION + "/operations",
        ctx ->
            send(
                ctx,
                Map.of(
                    "operations",
                    sessions.operations(Caller.of(ctx).scope(), SessionRoutes.id(ctx)).stream()
                        .map(ApiJson::operation)
                        .toList())));
    routes.get("/api/v1/operations/{opid}", this::operation);
  }

  private void operation(Context ctx) {
    OperationId id;
    try {
      id = new OperationId(ctx.pathParam("opid"));
    } catch (RuntimeException e) {
      throw new dev.berth.core.error.NotFoundException("operation");
    }
    send(ctx, ApiJson.operation(sessions.operation(Caller.of(ctx).scope(), id)));
  }

  private void send(Context ctx, Object body) {
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }
}
