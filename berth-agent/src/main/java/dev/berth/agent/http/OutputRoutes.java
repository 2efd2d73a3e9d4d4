package dev.berth.agent.http;

import dev.berth.agent.host.SessionHost;
import io.javalin.config.RoutesConfig;

/** The session's output: cursor reads and the SSE stream. */
final class OutputRoutes {

  private final SessionHost host;
  private final OutputResponses responses;

  OutputRoutes(SessionHost host, OutputResponses responses) {
    this.host = host;
    this.responses = responses;
  }

  void register(RoutesConfig routes) {
    routes.get(
        "/v1/sessions/{sid}/output",
        ctx -> responses.read(ctx, host.output(Requests.session(ctx))));
    routes.get(
        "/v1/sessions/{sid}/stream",
        ctx -> responses.stream(ctx, host.output(Requests.session(ctx))));
  }
}
