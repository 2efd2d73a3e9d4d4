package dev.berth.server.api;

import dev.berth.core.agent.DataPlane;
import dev.berth.core.agent.ExecutionReport;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.session.RuntimeRef;
import dev.berth.protocol.execution.ExecutionWire;
import dev.berth.server.api.body.CreateExecutionBody;
import dev.berth.server.session.UseCases;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.databind.json.JsonMapper;

/**
 * Executions: commands run to completion beside the session's shell, by its agent. Starting one is
 * access (the session is made active first); listing, reading and cancelling are passive. The
 * answer is the agent protocol's Execution object, unchanged.
 */
final class ExecutionRoutes {

  private static final String EXECUTIONS = SessionRoutes.SESSION + "/executions";

  private final UseCases sessions;
  private final DataPlane data;
  private final Bodies bodies;
  private final JsonMapper json;

  ExecutionRoutes(UseCases sessions, Bodies bodies, JsonMapper json) {
    this.sessions = sessions;
    this.data = sessions.dataPlane();
    this.bodies = bodies;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.post(EXECUTIONS, this::start);
    routes.get(
        EXECUTIONS,
        ctx ->
            send(
                ctx,
                200,
                Map.of(
                    "executions",
                    passive(ctx, data::executions).stream().map(ExecutionWire::write).toList())));
    // The execution's id is checked first: a malformed one is "not found" in any session state.
    routes.get(
        EXECUTIONS + "/{eid}",
        ctx -> {
          ExecutionId eid = executionId(ctx);
          send(
              ctx, 200, ExecutionWire.write(passive(ctx, runtime -> data.execution(runtime, eid))));
        });
    routes.post(
        EXECUTIONS + "/{eid}/cancel",
        ctx -> {
          ExecutionId eid = executionId(ctx);
          send(
              ctx,
              200,
              ExecutionWire.write(passive(ctx, runtime -> data.cancelExecution(runtime, eid))));
        });
  }

  private void start(Context ctx) {
    CreateExecutionBody body = bodies.read(ctx, CreateExecutionBody.class, false);
    Caller caller = Caller.of(ctx);
    RuntimeRef runtime =
        sessions
            .data()
            .interactive(caller.scope(), SessionRoutes.id(ctx), "execute", caller.actor());
    ExecutionReport started = data.startExecution(runtime, body.request());
    send(ctx, 201, ExecutionWire.write(started));
  }

  private <T> T passive(Context ctx, Function<RuntimeRef, T> call) {
    return call.apply(sessions.data().passive(Caller.of(ctx).scope(), SessionRoutes.id(ctx)));
  }

  private void send(Context ctx, int status, Object body) {
    ctx.status(status).contentType("application/json").result(json.writeValueAsString(body));
  }

  static ExecutionId executionId(Context ctx) {
    try {
      return new ExecutionId(ctx.pathParam("eid"));
    } catch (RuntimeException e) {
      throw new dev.berth.core.error.NotFoundException("execution");
    }
  }
}
