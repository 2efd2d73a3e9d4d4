package dev.berth.agent.http;

import dev.berth.agent.host.HostRefusal;
import dev.berth.agent.host.SessionHost;
import dev.berth.core.error.NotFoundException;
import dev.berth.protocol.wire.WireLimits;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An agent session's prompts and transcript. A prompt is the request's body as it is (UTF-8 text,
 * at most 1 MiB: no JSON escaping can push a prompt the control plane accepted past the node's
 * request limit) and its turn's permission mode a query parameter; the answer comes on acceptance.
 */
final class PromptRoutes {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PromptRoutes.class);

  private static final String SESSION = "/v1/sessions/{sid}";

  /** Transcript entries per read at most; a client pages on with the returned cursor. */
  static final int MAX_ENTRIES = 1000;

  private static final Duration KEEPALIVE = Duration.ofSeconds(15);

  private final SessionHost host;
  private final Requests requests;
  private final JsonMapper json;
  private final OutputResponses responses;

  PromptRoutes(SessionHost host, Requests requests, JsonMapper json, OutputResponses responses) {
    this.host = host;
    this.requests = requests;
    this.json = json;
    this.responses = responses;
  }

  void register(RoutesConfig routes) {
    routes.post(SESSION + "/prompts", this::prompt);
    routes.post(SESSION + "/plugins/refresh", this::refreshPlugins);
    routes.get(SESSION + "/transcript", this::transcript);
    routes.get(SESSION + "/transcript/stream", this::stream);
  }

  private void prompt(Context ctx) {
    byte[] body = ctx.bodyAsBytes();
    if (body.length > WireLimits.MAX_INPUT_BYTES) {
      throw HostRefusal.tooLarge("prompt", body.length, WireLimits.MAX_INPUT_BYTES);
    }
    String mode = ctx.queryParam("permissionMode");
    var view =
        host.prompt(
            Requests.session(ctx),
            requests.optionalCommand(ctx),
            new String(body, StandardCharsets.UTF_8),
            mode == null || mode.isEmpty() ? "default" : mode);
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("status", "queued");
    answer.put("executionId", view.id().value());
    answer.put("execution", ExecutionJson.of(view));
    ctx.status(202).contentType("application/json").result(json.writeValueAsString(answer));
  }

  /** {@code {"plugins": [names]}}: the plugins whose copies were replaced. */
  private void refreshPlugins(Context ctx) {
    List<String> refreshed =
        host.refreshPlugins(Requests.session(ctx), requests.optionalCommand(ctx));
    ctx.contentType("application/json")
        .result(json.writeValueAsString(Map.of("plugins", refreshed)));
  }

  private void transcript(Context ctx) {
    long cursor = cursor(ctx);
    List<JsonNode> entries = host.transcript(Requests.session(ctx), cursor, limit(ctx));
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("entries", entries);
    answer.put("nextCursor", cursor + entries.size());
    ctx.contentType("application/json").result(json.writeValueAsString(answer));
  }

  /**
   * The transcript as server-sent events from {@code cursor} (or {@code Last-Event-ID}), each entry
   * one {@code entry} event whose id is its {@code seq}, until the client leaves, stalls (it is
   * dropped, as an output stream's is), or the runtime is removed: then the stream ends, as an
   * output stream ends when its log closes, rather than with a problem in the middle of it.
   */
  private void stream(Context ctx) throws IOException, InterruptedException {
    String last = ctx.header("Last-Event-ID");
    long cursor =
        last != null && !last.isEmpty() ? Requests.cursor(last, "Last-Event-ID") : cursor(ctx);
    var session = Requests.session(ctx);
    host.transcript(session, cursor, 0); // refuses a shell or an awaiting runtime before 200
    ctx.status(200);
    ctx.header("Content-Type", "text/event-stream");
    ctx.header("Cache-Control", "no-cache, no-transform");
    ctx.header("X-Accel-Buffering", "no");
    OutputStream out = responses.guarded(ctx, "transcript stream " + ctx.path());
    try {
      while (true) {
        List<JsonNode> entries = host.transcript(session, cursor, MAX_ENTRIES);
        for (JsonNode entry : entries) {
          cursor++;
          out.write(
              ("id: " + cursor + "\nevent: entry\ndata: " + json.writeValueAsString(entry) + "\n\n")
                  .getBytes(StandardCharsets.UTF_8));
        }
        if (entries.isEmpty() && !host.awaitTranscript(session, cursor, KEEPALIVE)) {
          out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
      }
    } catch (NotFoundException removed) {
      // The runtime went: the stream ends, as an output stream ends when its log closes.
    } catch (RuntimeException unreadable) {
      // After the 200 a problem would land in the middle of the events: the stream ends.
      LOG.warn("the transcript stream {} ends: {}", ctx.path(), unreadable.toString());
    } catch (IOException clientGone) {
      // The client left: nobody to answer.
    }
  }

  /** {@code cursor}, or {@code offset} as the control plane's stream relay names it. */
  private static long cursor(Context ctx) {
    String value = ctx.queryParam("cursor");
    if (value == null) {
      value = ctx.queryParam("offset");
    }
    return value == null || value.isEmpty() ? 0 : Requests.cursor(value, "cursor");
  }

  private static int limit(Context ctx) {
    String value = ctx.queryParam("limit");
    if (value == null || value.isEmpty()) {
      return MAX_ENTRIES;
    }
    long limit = Requests.cursor(value, "limit");
    return (int) Math.max(1, Math.min(MAX_ENTRIES, limit));
  }
}
