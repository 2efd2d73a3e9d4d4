package dev.berth.agent.http;

import dev.berth.agent.host.HostRefusal;
import dev.berth.agent.host.Restored;
import dev.berth.agent.host.RuntimeRequest;
import dev.berth.agent.host.SessionHost;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.wire.ArchiveWire;
import dev.berth.protocol.wire.WireLimits;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/** The host's runtimes and the lifecycle and input commands of one session's runtime. */
final class RuntimeRoutes {

  private static final String SESSION = "/v1/sessions/{sid}";

  private final SessionHost host;
  private final Requests requests;
  private final JsonMapper json;

  RuntimeRoutes(SessionHost host, Requests requests, JsonMapper json) {
    this.host = host;
    this.requests = requests;
    this.json = json;
  }

  void register(RoutesConfig routes) {
    // A command meant for an older incarnation must never reach a newer one.
    routes.before(SESSION + "/*", this::requireRuntime);
    routes.get("/v1/sessions", this::list);
    routes.get("/v1/isolation", ctx -> send(ctx, StatusJson.isolation(host.isolation())));
    routes.get("/v1/leftovers", ctx -> send(ctx, Map.of("leftovers", host.leftovers())));
    routes.put(SESSION, this::provision);
    routes.delete(SESSION, this::remove);
    routes.get(SESSION + "/status", this::status);
    routes.post(SESSION + "/input", this::input);
    routes.post(SESSION + "/resize", this::resize);
    routes.post(SESSION + "/terminate", this::terminate);
    routes.post(SESSION + "/lease", this::lease);
    routes.post(SESSION + "/checkpoint/prepare", this::prepareCheckpoint);
    routes.get(SESSION + "/checkpoint/{generation}/summary", this::checkpointSummary);
    routes.post(SESSION + "/checkpoint/{generation}/abort", this::abortCheckpoint);
    routes.post(SESSION + "/restore", this::restore);
  }

  private void requireRuntime(Context ctx) {
    String runtime = ctx.queryParam("runtime");
    if (runtime != null) {
      host.requireRuntime(Requests.session(ctx), runtime);
    }
  }

  private void list(Context ctx) {
    send(
        ctx,
        Map.of(
            "sessions",
            host.list().stream().map(StatusJson::of).toList(),
            "storeEpoch",
            host.storeEpoch().highest()));
  }

  private void provision(Context ctx) {
    RuntimeRequest request = requests.body(ctx, RuntimeRequest.class);
    SessionHost.Provisioned result =
        host.provision(Requests.session(ctx), request, requests.optionalCommand(ctx));
    ctx.status(result.created() ? 201 : 200);
    send(ctx, StatusJson.of(result.view()));
  }

  private void remove(Context ctx) {
    host.remove(Requests.session(ctx), Optional.ofNullable(ctx.queryParam("runtime")));
    ctx.status(204);
  }

  private void status(Context ctx) {
    send(ctx, StatusJson.of(host.status(Requests.session(ctx))));
  }

  private void input(Context ctx) {
    long declared = ctx.contentLength();
    if (declared > WireLimits.MAX_INPUT_BYTES) {
      throw HostRefusal.tooLarge("input", declared, WireLimits.MAX_INPUT_BYTES);
    }
    byte[] bytes = ctx.bodyAsBytes();
    if (bytes.length > WireLimits.MAX_INPUT_BYTES) {
      throw HostRefusal.tooLarge("input", bytes.length, WireLimits.MAX_INPUT_BYTES);
    }
    host.input(Requests.session(ctx), requests.optionalCommand(ctx), bytes);
    send(ctx, Map.of("status", "ok"));
  }

  private void resize(Context ctx) {
    Resize size = requests.body(ctx, Resize.class);
    host.resize(Requests.session(ctx), requests.optionalCommand(ctx), size.cols(), size.rows());
    send(ctx, Map.of("cols", size.cols(), "rows", size.rows()));
  }

  private void terminate(Context ctx) {
    send(ctx, StatusJson.of(host.terminate(Requests.session(ctx), requests.command(ctx))));
  }

  private void lease(Context ctx) {
    Lease lease = requests.body(ctx, Lease.class);
    var expiresAt =
        host.renewLease(
            Requests.session(ctx), requests.command(ctx), Duration.ofSeconds(lease.ttlSeconds()));
    send(ctx, Map.of("expiresAt", expiresAt.toString()));
  }

  /**
   * {@code POST checkpoint/prepare?generation=G}: admitted under the local contract, captures the
   * shell's state, pauses the tree, then streams the archive of the runtime's state as the answer
   * ({@code application/zstd}, tar inside). The control plane commits it to its archive store only
   * when the stream ended cleanly; until then it may abort G.
   */
  private void prepareCheckpoint(Context ctx) throws java.io.IOException {
    long generation = generation(ctx.queryParam("generation"));
    var session = Requests.session(ctx);
    var contents = host.prepareCheckpoint(session, requests.command(ctx), generation);
    ctx.status(200);
    ctx.header("Content-Type", ArchiveWire.CONTENT_TYPE);
    ctx.header(ArchiveWire.CONTENTS_HEADER, String.join(",", contents));
    host.writeCheckpoint(session, generation, ctx.res().getOutputStream());
  }

  /**
   * {@code GET checkpoint/{G}/summary}: what the archive of G, streamed whole, left out (sockets,
   * FIFOs, devices, unreadable files), each with why: the control plane records it beside the
   * archive, so that nothing is dropped without the user being told.
   */
  private void checkpointSummary(Context ctx) {
    long generation = generation(ctx.pathParam("generation"));
    var summary = host.writtenCheckpoint(Requests.session(ctx), generation);
    java.util.List<Map<String, String>> skipped = new java.util.ArrayList<>();
    for (String line : summary.skipped()) {
      int cut = line.indexOf(": ");
      skipped.add(
          cut < 0
              ? Map.of("path", line, "reason", "left out")
              : Map.of("path", line.substring(0, cut), "reason", line.substring(cut + 2)));
    }
    send(
        ctx,
        Map.of(
            "generation",
            generation,
            "entries",
            summary.files(),
            "totalBytes",
            summary.totalBytes(),
            "skipped",
            skipped));
  }

  private void abortCheckpoint(Context ctx) {
    long generation = generation(ctx.pathParam("generation"));
    host.abortCheckpoint(Requests.session(ctx), requests.command(ctx), generation);
    send(ctx, Map.of("status", "aborted", "generation", generation));
  }

  /** {@code ?archiveSession=}: whose archive this is, when not the session's own (a recovery). */
  private static SessionId archiveOwner(Context ctx) {
    String owner = ctx.queryParam("archiveSession");
    if (owner == null) {
      return Requests.session(ctx);
    }
    try {
      return new SessionId(owner);
    } catch (RuntimeException e) {
      throw new dev.berth.core.error.InvalidValueException(
          "archiveSession must be a session id (32 hex digits), was \"" + owner + "\"");
    }
  }

  /**
   * {@code POST restore?generation=G}: the body is the archive ({@code application/zstd}), streamed
   * into the runtime that awaits it. The body is read to its end whatever the answer, so that a
   * refusal reaches the control plane as a problem and not as an upload that broke off.
   */
  private void restore(Context ctx) {
    InputStream body = ctx.bodyInputStream();
    Restored restored;
    try {
      restored =
          host.restore(
              Requests.session(ctx),
              archiveOwner(ctx),
              requests.command(ctx),
              generation(ctx.queryParam("generation")),
              body);
    } finally {
      drain(body);
    }
    send(
        ctx,
        Map.of(
            "runtime", restored.runtime(),
            "generation", restored.generation(),
            "bytes", restored.bytes(),
            "files", restored.files(),
            "output", Map.of("nextOffset", restored.outputNextOffset())));
  }

  private static void drain(InputStream body) {
    try {
      body.transferTo(OutputStream.nullOutputStream());
    } catch (java.io.IOException e) {
      // The client went away: there is no one left to answer.
    }
  }

  private static long generation(String value) {
    long generation = Requests.cursor(value, "generation");
    if (generation < 1) {
      throw new dev.berth.core.error.InvalidValueException(
          "generation must be a positive integer, was \"" + value + "\"");
    }
    return generation;
  }

  private void send(Context ctx, Object body) {
    ctx.contentType("application/json").result(json.writeValueAsString(body));
  }

  /** {@code POST resize}. */
  record Resize(int cols, int rows) {}

  /** {@code POST lease}. */
  record Lease(long ttlSeconds) {}
}
