package dev.berth.server.api;

import dev.berth.server.telemetry.Telemetry;
import io.javalin.http.Context;
import io.javalin.http.RequestLogger;
import io.javalin.router.Endpoint;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log line per request, and {@code berth_http_server_requests_seconds{method,route,status}}.
 *
 * <p>The line names the route's template, not the path, with the session id (when the route has
 * one) and the caller's principal beside it: the path could carry a token ({@code /login?token=})
 * and the query is never logged. The probes and the scrape are logged at DEBUG only, or they would
 * be most of the log; they are counted like every other request.
 */
final class RequestLog implements RequestLogger {

  private static final Logger LOG = LoggerFactory.getLogger(RequestLog.class);

  /** What is asked every few seconds by machines, not people. */
  private static final Set<String> QUIET = Set.of("/healthz", "/readyz", "/metrics");

  /** The route label of a request that matched no route, so that unknown paths add no series. */
  static final String UNMATCHED = "unmatched";

  private final Meter.MeterProvider<Timer> requests;

  RequestLog(Telemetry telemetry) {
    this.requests =
        telemetry.callTimer(
            "berth.http.server.requests",
            "API and web UI requests by method, route template and status");
  }

  @Override
  public void handle(Context ctx, Float millis) {
    String route = route(ctx);
    int status = ctx.statusCode();
    requests
        .withTags("method", ctx.method().name(), "route", route, "status", Integer.toString(status))
        .record(Duration.ofNanos((long) (millis * 1_000_000)));
    if (QUIET.contains(route) ? !LOG.isDebugEnabled() : !LOG.isInfoEnabled()) {
      return;
    }
    String line =
        String.format(
            java.util.Locale.ROOT,
            "%s %s %d %.1fms principal=%s%s",
            ctx.method().name(),
            route,
            status,
            millis,
            principal(ctx),
            route.startsWith(SessionRoutes.SESSION) ? session(ctx) : "");
    if (QUIET.contains(route)) {
      LOG.debug(line);
    } else {
      LOG.info(line);
    }
  }

  private static String route(Context ctx) {
    @Nullable Endpoint matched = matched(ctx);
    if (matched != null) {
      return matched.path;
    }
    // The web UI's assets are served by Jetty's static handler, outside the router.
    return ctx.path().startsWith("/api/") ? UNMATCHED : "static";
  }

  private static @Nullable Endpoint matched(Context ctx) {
    try {
      return ctx.endpoints().matchedHttpEndpoint();
    } catch (RuntimeException noneMatched) {
      return null;
    }
  }

  private static String principal(Context ctx) {
    Caller caller = ctx.attribute(Caller.ATTRIBUTE);
    return caller == null ? "-" : caller.actor();
  }

  private static String session(Context ctx) {
    String id = ctx.pathParamMap().get("id");
    return id == null ? "" : " session=" + safe(id);
  }

  /**
   * A path parameter as the log may show it: path parameters arrive URL-decoded, so one could hold
   * a line break and forge a log line; anything but an id's or a name's characters is left out.
   */
  static String safe(String value) {
    return SAFE.matcher(value).matches() ? value : "(not an id)";
  }

  private static final java.util.regex.Pattern SAFE =
      java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,128}");
}
