package dev.berth.server.api;

import dev.berth.server.runtime.AgentData;
import dev.berth.server.runtime.AgentEndpoints;
import dev.berth.server.session.SessionService;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Optional;

/**
 * The passive output stream, proxied from the agent without changing a byte of the SSE contract.
 * The cursor is checked by the agent before the stream starts, so a bad one is a 400 here too; a
 * session without a running runtime is 422 and nothing is restored or touched.
 */
final class StreamRoutes {

  private final SessionService sessions;
  private final AgentData data;

  StreamRoutes(SessionService sessions, AgentData data) {
    this.sessions = sessions;
    this.data = data;
  }

  void register(RoutesConfig routes) {
    routes.get(SessionRoutes.SESSION + "/stream", this::stream);
    routes.get(
        SessionRoutes.SESSION + "/executions/{eid}/output",
        ctx -> {
          AgentEndpoints.Endpoint agent =
              sessions.streamable(Caller.of(ctx).scope(), SessionRoutes.id(ctx));
          proxy(ctx, agent, "/executions/" + ExecutionRoutes.executionId(ctx) + "/stream");
        });
  }

  private void stream(Context ctx) throws IOException {
    AgentEndpoints.Endpoint agent =
        sessions.streamable(Caller.of(ctx).scope(), SessionRoutes.id(ctx));
    proxy(ctx, agent, "/stream");
  }

  private void proxy(Context ctx, AgentEndpoints.Endpoint agent, String path) throws IOException {
    String offset = ctx.queryParam("offset");
    String query =
        offset == null
            ? ""
            : "offset="
                + java.net.URLEncoder.encode(offset, java.nio.charset.StandardCharsets.UTF_8);
    try (AgentData.OpenStream stream =
        data.openStream(agent, path, query, Optional.ofNullable(ctx.header("Last-Event-ID")))) {
      ctx.status(200);
      ctx.header("Content-Type", "text/event-stream");
      ctx.header("Cache-Control", "no-cache, no-transform");
      ctx.header("X-Accel-Buffering", "no");
      ctx.header("X-Content-Type-Options", "nosniff");
      OutputStream out = ctx.res().getOutputStream();
      try {
        AgentData.copy(stream.body(), out);
      } catch (IOException clientOrAgentGone) {
        // Either side left; the stream is over.
      }
    }
  }
}
