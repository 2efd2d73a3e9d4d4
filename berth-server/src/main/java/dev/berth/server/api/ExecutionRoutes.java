package dev.berth.server.api;

import dev.berth.core.execution.ExecutionId;
import dev.berth.server.api.body.CreateExecutionBody;
import dev.berth.server.runtime.AgentData;
import dev.berth.server.runtime.AgentEndpoints;
import dev.berth.server.session.SessionService;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/**
 * Executions: commands run to completion beside the session's shell, by its agent. Starting one is
 * access (the session is made active first); the agent's Execution objects are passed through.
 */
final class ExecutionRoutes {

  private static final String EXECUTIONS = SessionRoutes.SESSION + "/executions";

  private final SessionService sessions;
  private final AgentData data;
  private final Bodies bodies;
  private final JsonMapper json;

  ExecutionRoutes(SessionService sessions, AgentData data, Bodies bodies, JsonMapper json) {
    this.sessions = sessions;
    this.data = data;
    this.bodies = bodies;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.post(EXECUTIONS, this::start);
    routes.get(EXECUTIONS, ctx -> pass(ctx, "GET", "/executions", Optional.empty(), 200));
    routes.get(
        EXECUTIONS + "/{eid}",
        ctx -> pass(ctx, "GET", "/executions/" + executionId(ctx), Optional.empty(), 200));
    routes.post(
        EXECUTIONS + "/{eid}/cancel",
        ctx ->
            pass(
                ctx, "POST", "/executions/" + executionId(ctx) + "/cancel", Optional.empty(), 200));
  }

  private void start(Context ctx) {
    CreateExecutionBody body = bodies.read(ctx, CreateExecutionBody.class, false);
    Caller caller = Caller.of(ctx);
    AgentEndpoints.Endpoint agent =
        sessions.active(caller.scope(), SessionRoutes.id(ctx), "execute", caller.actor());
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("command", body.command());
    body.timeoutSeconds().ifPresent(t -> request.put("timeoutSeconds", t));
    send(ctx, 201, data.call(agent, "POST", "/executions", Optional.of(request)).json());
  }

  private void pass(Context ctx, String method, String path, Optional<Object> body, int status) {
    AgentEndpoints.Endpoint agent =
        sessions.streamable(Caller.of(ctx).scope(), SessionRoutes.id(ctx));
    send(ctx, status, data.call(agent, method, path, body).json());
  }

  private void send(Context ctx, int status, Object body) {
    ctx.status(status).contentType("application/json").result(json.writeValueAsString(body));
  }

  static String executionId(Context ctx) {
    try {
      return new ExecutionId(ctx.pathParam("eid")).value();
    } catch (RuntimeException e) {
      throw new dev.berth.core.error.NotFoundException("execution");
    }
  }
}
