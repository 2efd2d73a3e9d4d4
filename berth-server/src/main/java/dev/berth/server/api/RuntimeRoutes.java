package dev.berth.server.api;

import dev.berth.server.runtime.AgentData;
import dev.berth.server.runtime.AgentEndpoints;
import dev.berth.server.session.SessionService;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
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

  /** The status fields a caller may see; the agent's own bookkeeping (leases, intents) stays in. */
  private static final List<String> PUBLIC_FIELDS =
      List.of(
          "runtime",
          "incarnation",
          "workload",
          "state",
          "health",
          "shell",
          "busy",
          "foreground",
          "lastOutputAt",
          "stopReason",
          "isolation",
          "disk",
          "output");

  private final SessionService sessions;
  private final AgentData data;
  private final JsonMapper json;

  RuntimeRoutes(SessionService sessions, AgentData data, JsonMapper json) {
    this.sessions = sessions;
    this.data = data;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.get(SessionRoutes.SESSION + "/runtime", this::runtime);
  }

  private void runtime(Context ctx) {
    AgentEndpoints.Endpoint agent =
        sessions.streamable(Caller.of(ctx).scope(), SessionRoutes.id(ctx));
    JsonNode status = data.status(agent);
    Map<String, Object> body = new LinkedHashMap<>();
    for (String field : PUBLIC_FIELDS) {
      JsonNode value = status.get(field);
      if (value != null && !value.isNull()) {
        body.put(field, value);
      }
    }
    // The shell's host process id means nothing to a caller and tells it about the host.
    if (body.get("shell") instanceof tools.jackson.databind.node.ObjectNode shell) {
      body.put("shell", shell.deepCopy().without("pid"));
    }
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }
}
