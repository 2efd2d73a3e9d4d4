package dev.berth.server.api;

import dev.berth.core.agent.DataPlane;
import dev.berth.server.session.UseCases;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An agent session's transcript: one schema for every agent type (docs/agents.md), as a page
 * ({@code GET …/transcript?cursor=&limit=}) and as server-sent events ({@code GET
 * …/transcript/stream?cursor=}, resumable with {@code Last-Event-ID}). Both are passive, as the
 * output stream is: a snapshot is not restored to be read, and nothing counts as an access.
 */
final class TranscriptRoutes {

  /** Entries per page at most (the node's own cap). */
  static final int MAX_LIMIT = 1000;

  private final UseCases sessions;
  private final JsonMapper json;

  TranscriptRoutes(UseCases sessions, JsonMapper json) {
    this.sessions = sessions;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    routes.get(SessionRoutes.SESSION + "/transcript", this::page);
    routes.get(SessionRoutes.SESSION + "/transcript/stream", this::stream);
  }

  private void page(Context ctx) {
    long cursor = number(ctx, "cursor", 0);
    int limit = SessionRoutes.intParam(ctx, "limit", MAX_LIMIT, 1, MAX_LIMIT);
    DataPlane.TranscriptPage page =
        sessions.data().transcript(Caller.of(ctx).scope(), SessionRoutes.id(ctx), cursor, limit);
    ObjectNode body = json.createObjectNode();
    ArrayNode entries = body.putArray("entries");
    for (String entry : page.entries()) {
      JsonNode parsed = json.readTree(entry);
      entries.add(parsed);
    }
    body.put("nextCursor", page.nextCursor());
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }

  private void stream(Context ctx) throws IOException {
    DataPlane.StreamFrom from =
        new DataPlane.StreamFrom(
            Optional.of(String.valueOf(number(ctx, "cursor", 0))),
            Optional.ofNullable(ctx.header("Last-Event-ID")));
    StreamRoutes.relay(
        ctx, sessions.data().transcriptStream(Caller.of(ctx).scope(), SessionRoutes.id(ctx), from));
  }

  private static long number(Context ctx, String name, long absent) {
    String value = ctx.queryParam(name);
    if (value == null || value.isEmpty()) {
      return absent;
    }
    try {
      long parsed = Long.parseLong(value);
      if (parsed < 0) {
        throw new NumberFormatException();
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new dev.berth.core.error.InvalidValueException(
          "invalid input: " + name + " must be an integer >= 0, was \"" + value + "\"");
    }
  }
}
