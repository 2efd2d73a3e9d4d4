package dev.berth.server.api;

import dev.berth.core.agent.ByteStream;
import dev.berth.core.agent.DataPlane;
import dev.berth.core.session.RuntimeRef;
import dev.berth.server.session.UseCases;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The passive output stream, proxied from the agent without changing a byte of the SSE contract.
 * The cursor is checked by the agent before the stream starts, so a bad one is a 400 here too; a
 * session without a running runtime is 422 and nothing is restored or touched.
 */
final class StreamRoutes {

  private final UseCases sessions;
  private final DataPlane data;
  private final java.util.concurrent.atomic.AtomicInteger open =
      new java.util.concurrent.atomic.AtomicInteger();

  StreamRoutes(UseCases sessions, io.micrometer.core.instrument.MeterRegistry registry) {
    this.sessions = sessions;
    this.data = sessions.dataPlane();
    io.micrometer.core.instrument.Gauge.builder(
            "berth.streams.open", open, java.util.concurrent.atomic.AtomicInteger::get)
        .description("Output streams open to clients: SSE streams and attach WebSockets")
        .tag("kind", "sse")
        .register(registry);
  }

  void register(RoutesConfig routes) {
    routes.get(SessionRoutes.SESSION + "/stream", ctx -> proxy(ctx, data::stream));
    routes.get(
        SessionRoutes.SESSION + "/executions/{eid}/output",
        ctx ->
            proxy(
                ctx,
                (runtime, from) ->
                    data.executionOutput(runtime, ExecutionRoutes.executionId(ctx), from)));
  }

  private void proxy(Context ctx, BiFunction<RuntimeRef, DataPlane.StreamFrom, ByteStream> open)
      throws IOException {
    RuntimeRef runtime = sessions.data().passive(Caller.of(ctx).scope(), SessionRoutes.id(ctx));
    DataPlane.StreamFrom from =
        new DataPlane.StreamFrom(
            Optional.ofNullable(ctx.queryParam("offset")),
            Optional.ofNullable(ctx.header("Last-Event-ID")));
    ByteStream stream = open.apply(runtime, from);
    this.open.incrementAndGet();
    try {
      relay(ctx, stream);
    } finally {
      this.open.decrementAndGet();
    }
  }

  /** Relays an agent's event stream to the client as it comes, and closes it. */
  static void relay(Context ctx, ByteStream agentStream) throws IOException {
    try (ByteStream stream = agentStream) {
      ctx.status(200);
      ctx.header("Content-Type", "text/event-stream");
      ctx.header("Cache-Control", "no-cache, no-transform");
      ctx.header("X-Accel-Buffering", "no");
      ctx.header("X-Content-Type-Options", "nosniff");
      try {
        stream.copyTo(ctx.res().getOutputStream());
      } catch (IOException clientOrAgentGone) {
        // Either side left; the stream is over.
      }
    }
  }
}
