package dev.berth.agent.http;

import dev.berth.agent.host.SessionHost;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionRequest;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/** Commands run to completion beside the shell: start, list, get, cancel, their output. */
final class ExecutionRoutes {

  private static final String EXECUTIONS = "/v1/sessions/{sid}/executions";
  private static final String EXECUTION = EXECUTIONS + "/{eid}";

  private final SessionHost host;
  private final Requests requests;
  private final JsonMapper json;
  private final OutputResponses output;

  ExecutionRoutes(SessionHost host, Requests requests, JsonMapper json, OutputResponses output) {
    this.host = host;
    this.requests = requests;
    this.json = json;
    this.output = output;
  }

  void register(RoutesConfig routes) {
    routes.post(EXECUTIONS, this::start);
    routes.get(EXECUTIONS, this::list);
    routes.get(EXECUTION, this::get);
    routes.post(EXECUTION + "/cancel", this::cancel);
    routes.get(
        EXECUTION + "/output",
        ctx -> output.read(ctx, host.executionOutput(Requests.session(ctx), execution(ctx))));
    routes.get(
        EXECUTION + "/stream",
        ctx -> output.stream(ctx, host.executionOutput(Requests.session(ctx), execution(ctx))));
  }

  private void start(Context ctx) {
    Start body = requests.body(ctx, Start.class);
    ExecutionRequest request =
        new ExecutionRequest(
            body.command(), Optional.ofNullable(body.timeoutSeconds()).map(Duration::ofSeconds));
    var view = host.startExecution(Requests.session(ctx), requests.optionalCommand(ctx), request);
    ctx.status(201);
    send(ctx, ExecutionJson.of(view));
  }

  private void list(Context ctx) {
    var views = host.executions(Requests.session(ctx));
    send(ctx, Map.of("executions", views.stream().map(ExecutionJson::of).toList()));
  }

  private void get(Context ctx) {
    send(ctx, ExecutionJson.of(host.execution(Requests.session(ctx), execution(ctx))));
  }

  private void cancel(Context ctx) {
    send(ctx, ExecutionJson.of(host.cancelExecution(Requests.session(ctx), execution(ctx))));
  }

  private static ExecutionId execution(Context ctx) {
    return new ExecutionId(ctx.pathParam("eid"));
  }

  private void send(Context ctx, Object body) {
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }

  /** {@code POST executions}: the command, and an optional timeout in seconds. */
  record Start(String command, Long timeoutSeconds) {}
}
