package dev.berth.cli;

import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A stand-in for the server's public API in the CLI's unit tests: routes per test, every request
 * recorded. The CLI against the real server is {@code ClientCommandsAgainstServerTest}.
 */
final class FakeApi implements AutoCloseable {

  static final String TOKEN = "cli-t0ken";
  static final String SID = "0123456789abcdef0123456789abcdef";

  /** A request as seen. */
  record Seen(String method, String path, String query, String authorization, String body) {}

  final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final Javalin app;

  FakeApi(Consumer<RoutesConfig> routes) {
    app =
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
                                  ctx.body())));
                  routes.accept(config.routes);
                })
            .start();
  }

  String url() {
    return "http://127.0.0.1:" + app.port();
  }

  @Override
  public void close() {
    app.stop();
  }

  static String session(String id, String name, String state) {
    return "{\"id\":\""
        + id
        + "\",\"name\":"
        + quote(name)
        + ",\"workloadType\":\"shell\",\"state\":\""
        + state
        + "\",\"createdAt\":\"2026-01-02T03:04:05Z\",\"lastAccess\":\"2026-01-02T03:04:05Z\","
        + "\"runtime\":{\"kind\":\"local\",\"name\":\"berth-"
        + id
        + "-1\",\"incarnation\":1},\"somethingNew\":true}";
  }

  static String quote(String text) {
    return tools.jackson.databind.json.JsonMapper.builder().build().writeValueAsString(text);
  }

  static void json(Context ctx, int status, String body) {
    ctx.status(status).contentType("application/json").result(body);
  }

  static void problem(Context ctx, int status, String reason, String message) {
    ctx.status(status)
        .contentType("application/problem+json")
        .result(
            "{\"status\":"
                + status
                + ",\"reason\":\""
                + reason
                + "\",\"detail\":"
                + quote(message)
                + ",\"error\":"
                + quote(message)
                + "}");
  }

  static String read(long offset, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return "{\"session\":\""
        + SID
        + "\",\"path\":\"active\",\"payload\":"
        + quote(text)
        + ",\"payloadBase64\":\""
        + Base64.getEncoder().encodeToString(bytes)
        + "\",\"offset\":"
        + offset
        + ",\"nextOffset\":"
        + (offset + bytes.length)
        + "}";
  }
}
