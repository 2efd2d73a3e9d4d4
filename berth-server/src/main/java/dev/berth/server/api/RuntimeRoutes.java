package dev.berth.server.api;

import dev.berth.core.agent.RuntimeReport;
import dev.berth.server.session.UseCases;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET /sessions/{id}/runtime}: what the session's agent reports about the running runtime —
 * its state and health, whether a foreground job runs, the output cursors, the disk its state takes
 * against the cap and the isolation in force. The workspace shows the isolation from here, since
 * only the agent knows what the host granted (bubblewrap may be missing, cgroups may be read-only).
 * Passive, like the stream: a session without a running runtime is 422, and nothing is restored or
 * touched.
 */
final class RuntimeRoutes {

  private final UseCases sessions;
  private final JsonMapper json;

  RuntimeRoutes(UseCases sessions, JsonMapper json) {
    this.sessions = sessions;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.get(SessionRoutes.SESSION + "/runtime", this::runtime);
  }

  private void runtime(Context ctx) {
    RuntimeReport report =
        sessions
            .dataPlane()
            .report(sessions.data().passive(Caller.of(ctx).scope(), SessionRoutes.id(ctx)));
    ctx.contentType("application/json").result(json.writeValueAsString(report.published()));
  }
}
