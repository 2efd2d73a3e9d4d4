package dev.berth.server.api;

import dev.berth.core.access.Scope;
import dev.berth.core.access.SessionLookup;
import dev.berth.core.archive.RestoreProgress;
import dev.berth.core.error.ForbiddenException;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** Operations: the durable record of each lifecycle change, for timelines and progress. */
final class OperationRoutes {

  private static final Duration POLL = Duration.ofMillis(250);
  private static final Duration HEARTBEAT = Duration.ofSeconds(15);

  private final SessionLookup sessions;
  private final RestoreProgress restores;
  private final JsonMapper json;

  OperationRoutes(SessionLookup sessions, RestoreProgress restores, JsonMapper json) {
    this.sessions = sessions;
    this.restores = restores;
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
    routes.get("/api/v1/admin/sessions/{id}/operations", this::everyOperation);
    routes.get("/api/v1/operations/{opid}", this::operation);
    routes.get("/api/v1/operations/{opid}/events", this::events);
  }

  /**
   * {@code GET /admin/sessions/{id}/operations}: the session's operations, a deleted session's too
   * (its own routes answer 404 once its deletion was accepted); the administrator's alone.
   */
  private void everyOperation(Context ctx) {
    Scope scope = Caller.of(ctx).scope();
    if (scope.tenant().isPresent()) {
      throw new ForbiddenException(
          "tenant " + scope.tenant().get().value(),
          "read operations through the admin API",
          "only the administrator may; a tenant reads its session's at GET /sessions/{id}/operations");
    }
    send(
        ctx,
        Map.of(
            "operations",
            sessions.operationsIncludingDeleted(scope, SessionRoutes.id(ctx)).stream()
                .map(ApiJson::operation)
                .toList()));
  }

  private void operation(Context ctx) {
    send(ctx, ApiJson.operation(sessions.operation(Caller.of(ctx).scope(), operationId(ctx))));
  }

  /**
   * The operation as server-sent events: an {@code operation} event with its JSON (plus {@code
   * progress} while a restore streams) each time it changes, the last one once it finished, then
   * the stream ends. A comment line every 15 s keeps proxies from closing a quiet stream.
   */
  private void events(Context ctx) throws IOException, InterruptedException {
    Scope scope = Caller.of(ctx).scope();
    OperationId id = operationId(ctx);
    Operation op = sessions.operation(scope, id);
    ctx.status(200);
    ctx.contentType("text/event-stream");
    ctx.header("Cache-Control", "no-store");
    OutputStream out = ctx.res().getOutputStream();
    String last = "";
    long quietSince = System.nanoTime();
    while (true) {
      String data = json.writeValueAsString(withProgress(op));
      if (!data.equals(last)) {
        write(out, "event: operation\ndata: " + data + "\n\n");
        last = data;
        quietSince = System.nanoTime();
      } else if (System.nanoTime() - quietSince > HEARTBEAT.toNanos()) {
        write(out, ": keep-alive\n\n");
        quietSince = System.nanoTime();
      }
      if (op.state().isFinished()) {
        return;
      }
      Thread.sleep(POLL.toMillis());
      op = sessions.operation(scope, id);
    }
  }

  private Map<String, Object> withProgress(Operation op) {
    Map<String, Object> body = ApiJson.operation(op);
    if (op.type() == OperationType.RESUME && !op.state().isFinished()) {
      restores.of(op.sessionId()).ifPresent(p -> body.put("progress", ApiJson.progress(p)));
    }
    return body;
  }

  private static void write(OutputStream out, String frame) throws IOException {
    out.write(frame.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static OperationId operationId(Context ctx) {
    try {
      return new OperationId(ctx.pathParam("opid"));
    } catch (RuntimeException e) {
      throw new dev.berth.core.error.NotFoundException("operation");
    }
  }

  private void send(Context ctx, Object body) {
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }
}
