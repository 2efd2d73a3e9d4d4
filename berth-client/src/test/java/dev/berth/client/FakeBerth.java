package dev.berth.client;

import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A stand-in for the Berth server's public API in client tests: routes are whatever a test
 * registers, and every request is recorded with the headers the client's rules are about. The real
 * server is exercised by the CLI's integration tests.
 */
final class FakeBerth implements AutoCloseable {

  static final String TOKEN = "t0k3n";
  static final String SID = "0123456789abcdef0123456789abcdef";

  /** One request as the fake saw it. */
  record Seen(
      String method,
      String path,
      String query,
      String authorization,
      String ifMatch,
      String lastEventId,
      String body) {}

  final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final Javalin app;

  private FakeBerth(Consumer<RoutesConfig> routes) {
    this.app =
        Javalin.create(
            config -> {
              config.jetty.host = "127.0.0.1";
              config.jetty.port = 0;
              config.startup.showJavalinBanner = false;
              config.http.compressionStrategy = CompressionStrategy.NONE;
              config.routes.before(
                  ctx ->
                      seen.add(
                          new Seen(
                              ctx.method().name(),
                              ctx.path(),
                              ctx.queryString(),
                              ctx.header("Authorization"),
                              ctx.header("If-Match"),
                              ctx.header("Last-Event-ID"),
                              ctx.body())));
              routes.accept(config.routes);
            });
    app.start();
  }

  static FakeBerth start(Consumer<RoutesConfig> routes) {
    return new FakeBerth(routes);
  }

  String url() {
    return "http://127.0.0.1:" + app.port();
  }

  BerthClient client() {
    return BerthClient.create(url(), TOKEN);
  }

  List<Seen> seen(String path) {
    return seen.stream().filter(s -> s.path().equals(path)).toList();
  }

  @Override
  public void close() {
    app.stop();
  }

  static String session(String state) {
    return "{\"id\":\""
        + SID
        + "\",\"name\":\"demo\",\"workloadType\":\"shell\",\"state\":\""
        + state
        + "\",\"createdAt\":\"2026-01-02T03:04:05Z\",\"lastAccess\":\"2026-01-02T03:04:05Z\","
        + "\"intentVersion\":3,\"runtime\":{\"kind\":\"local\",\"name\":\"berth-"
        + SID
        + "-1\",\"incarnation\":1},\"futureField\":{\"x\":1}}";
  }

  static void json(Context ctx, int status, String body) {
    ctx.status(status).contentType("application/json").result(body);
  }

  static void problem(Context ctx, int status, String reason, String message) {
    ctx.status(status)
        .contentType("application/problem+json")
        .result(
            "{\"type\":\"about:blank\",\"title\":\"t\",\"status\":"
                + status
                + ",\"reason\":\""
                + reason
                + "\",\"detail\":\""
                + message
                + "\",\"error\":\""
                + message
                + "\",\"session\":\""
                + SID
                + "\"}");
  }

  /** Starts an SSE answer and returns its body; each {@link #send} flushes. */
  static OutputStream sse(Context ctx) throws IOException {
    ctx.status(200);
    ctx.header("Content-Type", "text/event-stream");
    ctx.header("Cache-Control", "no-cache, no-transform");
    OutputStream out = ctx.res().getOutputStream();
    send(out, ": connected\n\n");
    return out;
  }

  static void send(OutputStream out, String frame) throws IOException {
    out.write(frame.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  static String output(long offset, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    long next = offset + bytes.length;
    return "id: "
        + next
        + "\nevent: output\ndata: {\"offset\":"
        + offset
        + ",\"payloadBase64\":\""
        + Base64.getEncoder().encodeToString(bytes)
        + "\",\"nextOffset\":"
        + next
        + "}\n\n";
  }

  static String reset(long nextOffset) {
    return "id: " + nextOffset + "\nevent: reset\ndata: {\"nextOffset\":" + nextOffset + "}\n\n";
  }

  static String read(long offset, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return "{\"session\":\""
        + SID
        + "\",\"path\":\"active\",\"payload\":\""
        + text
        + "\",\"payloadBase64\":\""
        + Base64.getEncoder().encodeToString(bytes)
        + "\",\"offset\":"
        + offset
        + ",\"nextOffset\":"
        + (offset + bytes.length)
        + "}";
  }
}
